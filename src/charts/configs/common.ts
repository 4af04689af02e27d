import type { ChartConfiguration, ChartDataset, Plugin, Tick } from 'chart.js';
import {
  cleanText,
  formatUsd,
  logPercentTick,
  percentTick,
  percentUnitTick,
  rangeLabel,
  roundLogTicks as roundLogTickValues,
} from '../format.js';
import { localOnly, portable } from '../portable.js';
import { align, cleanSamples, dateLabels, thin, type Aligned } from '../series.js';

/** What every chart kind's builder takes besides its points. */
export interface ChartTextOptions {
  entityName: string;
  range: string;
  /** Overrides the default title; `''` draws none. */
  title?: string;
  simulated?: boolean;
  /** Longer series are thinned to this many points (first and last kept); defaults to MAX_POINTS. */
  maxPoints?: number;
}

/** A built chart: the Chart.js config plus what the renderer and chat message need about it. */
export interface BuiltChart {
  config: ChartConfiguration<'line'>;
  alt: string;
  /** True when there was nothing to plot and the config draws the "No data" message. */
  empty: boolean;
  /**
   * The share of the usual height (800 × 400) this chart wants, for a shape that is not a line
   * chart's: a week-by-day grid is wide and short, and drawn in the usual box it would leave half
   * the image blank in the chat.
   */
  heightShare?: number;
}

export type LineConfig = ChartConfiguration<'line'>;
export type LineDataset = ChartDataset<'line', (number | null)[]>;

/** The y-axis choices a chart kind makes; everything else about the axis is shared. */
export interface YAxis {
  type?: 'linear' | 'logarithmic';
  afterBuildTicks?: (axis: { ticks: Tick[]; min: number; max: number }) => void;
  min?: number;
  max?: number;
  suggestedMin?: number;
  suggestedMax?: number;
  ticks?: { callback?: (value: number | string, index: number, ticks: Tick[]) => string; stepSize?: number; autoSkip?: boolean };
}

/**
 * Colours chosen for a white background, which the renderer always paints: Slack's light theme and
 * Discord's dark theme both show the image as a white card, so one palette reads everywhere.
 */
export const INK = {
  title: '#111827',
  text: '#374151',
  muted: '#6b7280',
  grid: '#e5e7eb',
  axis: '#9ca3af',
  background: '#ffffff',
} as const;

/** A reference line (an alert's threshold): red, to read as the line not to cross. */
const REFERENCE_COLOR = '#dc2626';

export const SERIES_COLOR = {
  pol: '#2563eb',
  reserves: '#15803d',
  liabilities: '#dc2626',
  inflation: '#c2410c',
  voice: '#7c3aed',
} as const;

/** Fixed per category so the same category has the same colour on every chart. */
export const CATEGORY_COLOR: Readonly<Record<string, string>> = {
  security: '#2563eb',
  financial: '#15803d',
  operational: '#ea580c',
  reputational: '#9333ea',
  regulatory: '#0891b2',
  transparency: '#ca8a04',
  solvency: '#db2777',
};

/**
 * Twelve hues far enough apart to tell lines apart on white; the watchlist chart caps its lines at
 * this many rather than reuse a colour.
 */
export const PALETTE = [
  '#2563eb', // blue
  '#dc2626', // red
  '#15803d', // green
  '#ea580c', // orange
  '#7c3aed', // violet
  '#0891b2', // cyan
  '#db2777', // pink
  '#854d0e', // brown
  '#4b5563', // grey
  '#65a30d', // lime
  '#1e3a8a', // navy
  '#ca8a04', // amber
] as const;

export const MAX_POINTS = 400;
export const SIMULATED_MARK = 'SIMULATED DATA';
export const NO_DATA = 'No data for this period';

export function withAlpha(hex: string, alpha: number): string {
  const n = Number.parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}

/** What every single-entity chart starts from: its title, the entity's display name and the range in words. */
export function chartHeading(opts: ChartTextOptions, what: string, fallbackName: string): { title: string; name: string; range: string } {
  return { title: chartTitle(opts, what), name: cleanText(opts.entityName, 48) || fallbackName, range: rangeLabel(opts.range) };
}

/** The "No data for this period" chart, with alt text that says so about `subject` ("PoL of Bitcoin over 90 days"). */
export function noDataChart(title: string, subject: string, simulated: boolean | undefined): BuiltChart {
  return { config: emptyChart(title, simulated), alt: `${subject}: no data for this period.${altSuffix(simulated)}`, empty: true };
}

/** What differs between the charts of one value of one entity over time (PoL, inflation, Proof of Voice). */
export interface SingleSeriesSpec<P> {
  /** In the title: "Bitcoin · PoL, 90 days". */
  what: string;
  fallbackName: string;
  /** Starts the alt text: "PoL of Bitcoin over 90 days". */
  subject: (name: string, range: string) => string;
  value: (p: P) => number | null | undefined;
  format: (v: number) => string;
  /** The subtitle's first part, which says what the axis measures and which way is better. */
  measure: string;
  dataset: Omit<LineDataset, 'data'> & { label: string };
  y: (aligned: Aligned, first: number, last: number) => YAxis;
  /** After the change in the alt text: ", lower is safer". */
  altNote: string;
  /** After each value in the alt text's change: " per year". */
  unit?: string;
  /** A level drawn dashed across the chart (an alert's line), named in the subtitle and alt text. */
  reference?: { value: number; label: string };
}

/** One entity's single value over time, drawn the way every such chart is. */
export function singleSeriesChart<P>(points: readonly P[], opts: ChartTextOptions, spec: SingleSeriesSpec<P>): BuiltChart {
  const { title, name, range } = chartHeading(opts, spec.what, spec.fallbackName);
  const subject = spec.subject(name, range);
  const samples = cleanSamples(points, spec.value);
  if (samples.length === 0) return noDataChart(title, subject, opts.simulated);
  const first = samples[0]!.v;
  const last = samples[samples.length - 1]!.v;
  const aligned = align([samples]);
  const ref = spec.reference;
  // The line is a second, flat series: the axis then takes it into account like any value.
  if (ref) aligned.values.push(aligned.timestamps.map(() => ref.value));
  const config = lineChart({
    title,
    subtitle: subtitleText([spec.measure, `latest ${spec.format(last)}`, ref && `dashed: ${ref.label}`], opts.simulated),
    aligned,
    datasets: ref ? [spec.dataset, { label: ref.label, borderColor: REFERENCE_COLOR, borderDash: [8, 5], fill: false }] : [spec.dataset],
    y: spec.y(aligned, first, last),
    legend: false,
    maxPoints: opts.maxPoints,
  });
  const unit = spec.unit ?? '';
  const change = samples.length > 1 ? `from ${spec.format(first)} to ${spec.format(last)}${unit}` : `${spec.format(last)}${unit}`;
  return {
    config,
    alt: `${subject}: ${change}${spec.altNote}.${ref ? ` Dashed: ${ref.label}.` : ''}${altSuffix(opts.simulated)}`,
    empty: false,
  };
}

/** "Bitcoin · PoL, 90 days", or the caller's own title; always one plain line of at most ~80 chars. */
export function chartTitle(opts: Pick<ChartTextOptions, 'entityName' | 'range' | 'title'>, what: string): string {
  if (opts.title !== undefined) return cleanText(opts.title);
  const name = cleanText(opts.entityName, 48) || 'Unknown';
  const range = rangeLabel(opts.range);
  return cleanText(range ? `${name} · ${what}, ${range}` : `${name} · ${what}`);
}

export function subtitleText(parts: readonly (string | false | undefined)[], simulated: boolean | undefined): string {
  const kept = parts.filter((p): p is string => typeof p === 'string' && p.length > 0);
  return (simulated ? [SIMULATED_MARK, ...kept] : kept).join('  ·  ');
}

export function altSuffix(simulated: boolean | undefined): string {
  return simulated ? ' Simulated data.' : '';
}

/** Paints the background: a PNG with transparency shows black or grey in some dark-theme clients. */
export const background: Plugin<'line'> = localOnly({
  id: 'polbotBackground',
  beforeDraw(chart) {
    const { ctx } = chart;
    ctx.save();
    ctx.fillStyle = INK.background;
    ctx.fillRect(0, 0, chart.width, chart.height);
    ctx.restore();
  },
});

/**
 * Category-axis labels are blank except on round dates; dropping the blank ticks before layout
 * changes nothing visible but spares Chart.js measuring hundreds of empty labels per render.
 */
const dropBlankTicks = localOnly(function dropBlankTicks(axis: { ticks: Tick[]; getLabelForValue(v: number): string }) {
  axis.ticks = axis.ticks.filter((t) => axis.getLabelForValue(t.value) !== '');
});

// Twins of percentTick / percentUnitTick in format.ts; a test checks they agree. A PoL axis runs
// from 0 to 100 %, where toFixed never writes an exponent, and its twin is kept short for the URL;
// an inflation axis has no bound, so its twin writes a number from 1e21 whole, as `fixed` does.
const PERCENT_TICK_SOURCE = `function (v, i, t) {
  var p = t.length > 1 ? Math.abs(t[1].value - t[0].value) * 100 : NaN;
  var d = p > 0 && isFinite(p) ? Math.max(0, Math.min(4, Math.ceil(-Math.log10(p) - 1e-9))) : 2;
  var s = (v * 100).toFixed(d);
  return (Number(s) === 0 ? s.replace("-", "") : s) + "%";
}`;

const PERCENT_UNIT_TICK_SOURCE = PERCENT_TICK_SOURCE.replace('* 100 : NaN', ': NaN').replace(
  '(v * 100).toFixed(d)',
  'Math.abs(v) < 1e21 ? v.toFixed(d) : BigInt(v) + ""',
);

const USD_TICK_SOURCE = `function (value) {
  return new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", notation: "compact", minimumFractionDigits: 0, maximumFractionDigits: 1 }).format(value);
}`;

const LOG_PERCENT_TICK_SOURCE = `function (value) {
  return (value * 100).toLocaleString("en-US", { useGrouping: false, maximumSignificantDigits: 3 }) + "%";
}`;

const ROUND_LOG_TICKS_SOURCE = `function (axis) {
  var min = axis.min, max = axis.max, out = [];
  if (!(min > 0) || !(max > min) || !isFinite(max)) { axis.ticks = []; return; }
  for (var e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) {
    [1, 2, 5].forEach(function (m) {
      var v = Number((m * Math.pow(10, e)).toPrecision(1));
      if (v >= min * (1 - 1e-9) && v <= max * (1 + 1e-9)) out.push(v);
    });
  }
  if (out.length > 9) out = out.filter(function (v) { return Math.abs(v / Math.pow(10, Math.round(Math.log10(v))) - 1) < 1e-9; });
  axis.ticks = out.map(function (v) { return { value: v, major: false }; });
}`;

export const percentTickCallback = portable(
  (value: number | string, _index: number, ticks: Tick[]) => percentTick(Number(value), ticks),
  PERCENT_TICK_SOURCE,
);
export const percentUnitTickCallback = portable(
  (value: number | string, _index: number, ticks: Tick[]) => percentUnitTick(Number(value), ticks),
  PERCENT_UNIT_TICK_SOURCE,
);
export const usdTickCallback = portable((value: number | string) => formatUsd(Number(value)), USD_TICK_SOURCE);
export const logPercentTickCallback = portable((value: number | string) => logPercentTick(Number(value)), LOG_PERCENT_TICK_SOURCE);
/** Replaces Chart.js's log ticks with round 1-2-5 ones between the axis bounds. */
export const roundLogTicks = portable((axis: { ticks: Tick[]; min: number; max: number }) => {
  axis.ticks = roundLogTickValues(axis.min, axis.max).map((value) => ({ value, major: false }));
}, ROUND_LOG_TICKS_SOURCE);

/** Padding around the data so lines do not touch the frame, kept inside [lo, hi] when given. */
export function paddedBounds(
  values: readonly (number | null)[][],
  clamp: { lo?: number; hi?: number } = {},
): { suggestedMin?: number; suggestedMax?: number } {
  let lo = Infinity;
  let hi = -Infinity;
  for (const row of values) {
    for (const v of row) {
      if (v === null) continue;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  if (!Number.isFinite(lo)) return {};
  const pad = hi > lo ? (hi - lo) * 0.08 : Math.abs(hi) * 0.1 || 0.01;
  let min = lo - pad;
  let max = hi + pad;
  if (clamp.lo !== undefined) min = Math.max(clamp.lo, min);
  if (clamp.hi !== undefined) max = Math.min(clamp.hi, max);
  return { suggestedMin: min, suggestedMax: max };
}

export interface LineChartParts {
  title: string;
  subtitle: string;
  aligned: Aligned;
  datasets: (Omit<LineDataset, 'data'> & { label: string })[];
  y: YAxis;
  legend: boolean;
  maxPoints?: number;
}

export const tickFont = { size: 11 };

/** A still picture: no animation, no resizing, no pointer events, and the same margins everywhere. */
export function still() {
  return {
    animation: false as const,
    responsive: false,
    maintainAspectRatio: false,
    events: [],
    layout: { padding: { top: 14, right: 22, bottom: 10, left: 14 } },
  };
}

export function titlePlugin(title: string) {
  return {
    display: title.length > 0,
    text: title,
    align: 'start' as const,
    color: INK.title,
    font: { size: 17, weight: 600 },
    padding: { top: 0, bottom: 4 },
  };
}

/** The line under the title: what the chart measures, which way is better, the simulated-data mark. */
export function subtitlePlugin(text: string) {
  return { display: text.length > 0, text, align: 'start' as const, color: INK.muted, font: { size: 12 }, padding: { top: 0, bottom: 14 } };
}

/** The shared look of every line chart. `aligned.values[i]` feeds `datasets[i]`. */
export function lineChart(parts: LineChartParts): LineConfig {
  const aligned = thin(parts.aligned, Math.max(3, parts.maxPoints ?? MAX_POINTS));
  const labels = dateLabels(aligned.timestamps);
  // Dense lines blur together at 2 px; long ranges get a finer pen.
  const pen = aligned.timestamps.length > 200 ? 1.5 : 2;
  const multi = parts.datasets.length > 1;
  const fixedAxis = parts.y.min !== undefined || parts.y.max !== undefined;
  // Only what differs from Chart.js defaults: QuickChart carries the config in a length-capped URL.
  const datasets: LineDataset[] = parts.datasets.map((d, i) => ({
    borderWidth: pen,
    pointRadius: 0,
    ...(parts.legend ? { pointStyle: 'line' as const } : {}),
    // Series on a shared timeline have holes where one lacks a point; bridge them.
    ...(multi ? { spanGaps: true } : {}),
    // Lets a line running along the edge of a fixed 0..100 axis show its full width.
    ...(fixedAxis ? { clip: 4 } : {}),
    ...d,
    data: aligned.values[i] ?? [],
  }));
  // A lone point has no line to draw, so show it as a dot.
  if (aligned.timestamps.length === 1) for (const d of datasets) d.pointRadius = 3;

  return {
    type: 'line',
    data: { labels, datasets },
    plugins: [background],
    options: {
      ...still(),
      normalized: true,
      plugins: {
        title: titlePlugin(parts.title),
        subtitle: subtitlePlugin(parts.subtitle),
        legend: parts.legend
          ? {
              position: 'bottom',
              align: 'start',
              labels: { usePointStyle: true, pointStyle: 'line', boxWidth: 22, padding: 14, color: INK.text, font: { size: 12 } },
            }
          : { display: false },
        tooltip: { enabled: false },
      },
      scales: {
        x: {
          type: 'category',
          grid: { display: false },
          border: { color: INK.axis },
          ticks: { autoSkip: false, maxRotation: 0, color: INK.muted, font: tickFont, padding: 6 },
          afterBuildTicks: dropBlankTicks as never,
        },
        y: {
          type: 'linear',
          ...(parts.y as object),
          grid: { color: INK.grid },
          border: { display: false },
          ticks: { maxTicksLimit: 6, color: INK.muted, font: tickFont, padding: 8, ...parts.y.ticks },
        },
      },
    },
  };
}

/** The "No data for this period" chart: title kept, axes hidden, the message where the plot would be. */
function emptyChart(title: string, simulated: boolean | undefined): LineConfig {
  return {
    type: 'line',
    data: { labels: [], datasets: [] },
    plugins: [background],
    options: {
      ...still(),
      plugins: {
        title: titlePlugin(title),
        // Declarative rather than a drawing plugin, so QuickChart shows the same message.
        subtitle: {
          display: true,
          text: simulated ? [NO_DATA, SIMULATED_MARK] : NO_DATA,
          align: 'center',
          color: INK.muted,
          font: { size: 20 },
          padding: { top: 130, bottom: 0 },
        },
        legend: { display: false },
        tooltip: { enabled: false },
      },
      scales: { x: { display: false }, y: { display: false } },
    },
  };
}
