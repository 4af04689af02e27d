import type { CategoryPoint, MetricPoint, PolPoint, ReservesPoint, ValuePoint } from '../api/domain.js';

/**
 * What the command core asks the chart module to draw. The module owns everything visual (titles,
 * units, which way a number runs, the simulated-data marker), so callers pass data and names only.
 */
interface SpecCommon {
  /**
   * The range token from the command (`7d`, `30d`, `90d`, `180d`, `365d`, `all`) or a free label;
   * tokens are spelled out in titles ("90 days"), anything else is shown as given.
   */
  range: string;
  /** Demo data must always be labelled: adds "SIMULATED DATA" to the chart and its alt text. */
  simulated?: boolean;
  /** Overrides the default title; `''` draws no title. Plain text, truncated to ~80 characters. */
  title?: string;
  /**
   * Stable identity for the render cache, e.g. `exchange:binance`. Defaults to the entity name,
   * which is not unique (a project and an exchange can share a name). The data version (last
   * timestamp and a hash of the values) is always added, so stale images are never served.
   */
  cacheKey?: string;
}

interface EntitySpec extends SpecCommon {
  /** Display name from the upstream; may contain anything, it is sanitised before drawing. */
  entityName: string;
}

export interface PolChartSpec extends EntitySpec {
  kind: 'pol';
  points: readonly PolPoint[];
  /** A level drawn dashed across the chart (an alert's line), with what it is: "alert at 10.0%". */
  line?: { value: number; label: string };
}

export interface CategoriesChartSpec extends EntitySpec {
  kind: 'categories';
  points: readonly CategoryPoint[];
  /** Which categories to draw and in what order; defaults to every category found, known ones first. */
  categories?: readonly string[];
}

/** Metric quality scores over time, for the few metrics named (the ones behind "why this PoL"). */
export interface MetricsChartSpec extends EntitySpec {
  kind: 'metrics';
  points: readonly MetricPoint[];
  metrics: readonly { key: string; label: string }[];
}

/** Weeks of daily commit counts, oldest first, as the upstream gives them. */
export interface HeatmapChartSpec extends EntitySpec {
  kind: 'heatmap';
  weeks: readonly (readonly number[])[];
}

export interface ReservesChartSpec extends EntitySpec {
  kind: 'reserves';
  points: readonly ReservesPoint[];
}

/** Token inflation, in percent per year (3.5 means 3.5 %/yr), as the upstream reports it. */
export interface InflationChartSpec extends EntitySpec {
  kind: 'inflation';
  points: readonly ValuePoint[];
}

/** Proof of Voice score, 0..100, higher is better. */
export interface VoiceChartSpec extends EntitySpec {
  kind: 'voice';
  points: readonly ValuePoint[];
}

/** Funds lost at exchanges, a total per year (not tied to one entity). */
export interface LostFundsChartSpec extends SpecCommon {
  kind: 'lostfunds';
  years: readonly { year: number; amountUsd: number; incidents: number }[];
}

export interface WatchlistSeries {
  name: string;
  points: readonly PolPoint[];
}

/** Several entities' PoL on one chart, for scheduled digests. */
export interface WatchlistChartSpec extends SpecCommon {
  kind: 'watchlist';
  series: readonly WatchlistSeries[];
  /** Name of the watchlist or digest, used in the default title ("Watchlist" when absent). */
  listName?: string;
}

export type ChartSpec =
  | PolChartSpec
  | CategoriesChartSpec
  | MetricsChartSpec
  | HeatmapChartSpec
  | ReservesChartSpec
  | InflationChartSpec
  | VoiceChartSpec
  | LostFundsChartSpec
  | WatchlistChartSpec;

export type ChartKind = ChartSpec['kind'];

/** `width`/`height` are CSS pixels; a local PNG has `width * pixelRatio` by `height * pixelRatio` pixels. */
export type ChartImage =
  | { kind: 'png'; png: Buffer; width: number; height: number; pixelRatio: number; filename: string; alt: string }
  | { kind: 'url'; url: string; width: number; height: number; alt: string };

export interface ChartRenderer {
  render(spec: ChartSpec): Promise<ChartImage>;
}

export interface ChartRendererStats {
  /** Charts actually drawn (or URLs built); cache hits do not count. */
  renders: number;
  cacheHits: number;
  cachedBytes: number;
}

export interface ChartRendererOptions {
  renderer: 'local' | 'quickchart';
  /** Base URL of the QuickChart service, e.g. `https://quickchart.io` or `http://charts.internal:3400`. */
  quickchartUrl: string;
  /** CSS size of the chart; defaults to 800 x 400. */
  width?: number;
  height?: number;
  /** Defaults to 2 (a 1600 x 800 PNG at the default size), so charts stay sharp on high-DPI screens. */
  pixelRatio?: number;
  /** Upper bound of the render cache in bytes (PNG sizes, URL lengths); defaults to 16 MiB. */
  cacheMaxBytes?: number;
  /**
   * QuickChart: the longest image URL handed to the platforms (default 2,000, within Discord's
   * 2,048); a longer chart is fetched from QuickChart as PNG and uploaded instead.
   */
  maxImageUrl?: number;
}

export class ChartRenderError extends Error {
  override name = 'ChartRenderError';
}
