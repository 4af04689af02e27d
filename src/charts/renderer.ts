import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { describeChart } from './configs/index.js';
import { drawPng } from './local.js';
import { parseQuickChartBase } from './quickchart-url.js';
import {
  ChartRenderError,
  type ChartImage,
  type ChartRenderer,
  type ChartRendererOptions,
  type ChartRendererStats,
  type ChartSpec,
} from './types.js';

export interface StatefulChartRenderer extends ChartRenderer {
  stats(): ChartRendererStats;
  /** Drops every cached image (renders under way still finish). */
  clear(): void;
}

const DEFAULTS = { width: 800, height: 400, pixelRatio: 2, cacheMaxBytes: 16 * 1024 * 1024 };

/**
 * QuickChart images travel as GET URLs, and chat platforms cap image URL length (Slack's image
 * blocks at 3,000 characters, Discord's embeds at 2,048), so its series are thinned further.
 */
const QUICKCHART_MAX_POINTS = 48;

export function createChartRenderer(options: ChartRendererOptions): StatefulChartRenderer {
  const width = positiveInt(options.width ?? DEFAULTS.width, 'width');
  const height = positiveInt(options.height ?? DEFAULTS.height, 'height');
  const pixelRatio = options.pixelRatio ?? DEFAULTS.pixelRatio;
  if (!(pixelRatio > 0 && pixelRatio <= 4)) throw new ChartRenderError(`chart pixelRatio must be in (0, 4]: ${pixelRatio}`);
  const mode = options.renderer;
  // Fail at start-up, not on the first chart.
  if (mode === 'quickchart') parseQuickChartBase(options.quickchartUrl);

  const heightOf = (built: { heightShare?: number }): number => Math.round(height * Math.min(1, Math.max(0.4, built.heightShare ?? 1)));
  let renders = 0;
  let cacheHits = 0;

  const draw = async (spec: ChartSpec): Promise<ChartImage> => {
    renders++;
    if (mode === 'quickchart') {
      const built = describeChart(spec, { maxPoints: QUICKCHART_MAX_POINTS });
      const drawn = heightOf(built);
      const target = { baseUrl: options.quickchartUrl, width, height: drawn, pixelRatio };
      // Loaded when first used: a bot drawing locally never needs the QuickChart client.
      const { quickChart } = await import('./quickchart.js');
      const chart = await quickChart(built.config, target, options.maxImageUrl);
      if ('url' in chart) return { kind: 'url', url: chart.url, width, height: drawn, alt: built.alt };
      return { kind: 'png', png: chart.png, width, height: drawn, pixelRatio, filename: filenameFor(spec), alt: built.alt };
    }
    const built = describeChart(spec);
    const drawn = heightOf(built);
    const png = await drawPng(built.config, { width, height: drawn, pixelRatio });
    return { kind: 'png', png, width, height: drawn, pixelRatio, filename: filenameFor(spec), alt: built.alt };
  };

  const cache = new LRUCache<string, ChartImage, { spec: ChartSpec }>({
    maxSize: options.cacheMaxBytes ?? DEFAULTS.cacheMaxBytes,
    sizeCalculation: (image) => Math.max(1, image.kind === 'png' ? image.png.length : image.url.length),
    // lru-cache also merges concurrent requests for the same key into one draw.
    fetchMethod: (_key, _stale, { context }) => draw(context.spec),
  });

  return {
    async render(spec) {
      const key = cacheKeyOf(spec, mode);
      if (key === null) return draw(spec);
      const status: LRUCache.Status<string, ChartImage, { spec: ChartSpec }> = {};
      const image = await cache.fetch(key, { context: { spec }, status });
      if (status.fetch === 'hit' || status.fetch === 'inflight') cacheHits++;
      if (!image) throw new ChartRenderError('chart could not be rendered');
      return image;
    },
    stats: () => ({ renders, cacheHits, cachedBytes: cache.calculatedSize }),
    clear: () => cache.clear(),
  };
}

/**
 * Entity, kind, range and a version of the data: the last timestamp plus a hash of everything that
 * is drawn, so new data or a changed title never gets an old image. Null when the spec cannot be
 * hashed (e.g. a cyclic object); such a chart is simply not cached.
 */
export function cacheKeyOf(spec: ChartSpec, mode: string): string | null {
  try {
    const { cacheKey, ...drawn } = spec;
    const identity =
      cacheKey ??
      (spec.kind === 'watchlist' ? `list:${spec.listName ?? ''}` : spec.kind === 'lostfunds' ? 'lostfunds' : `name:${spec.entityName}`);
    const hash = createHash('sha256').update(JSON.stringify(drawn)).digest('base64url').slice(0, 22);
    return `${mode}|${spec.kind}|${identity}|${spec.range}|${lastTimestamp(spec)}|${hash}`;
  } catch {
    return null;
  }
}

function lastTimestamp(spec: ChartSpec): number {
  // A heatmap and yearly totals have no timestamps: their data hash alone tells one version from another.
  if (spec.kind === 'heatmap' || spec.kind === 'lostfunds') return 0;
  const lists = spec.kind === 'watchlist' ? spec.series.map((s) => s.points) : [spec.points];
  let last = -Infinity;
  for (const points of lists) {
    if (!Array.isArray(points)) continue;
    for (const p of points as readonly { timestamp?: unknown }[]) {
      if (typeof p?.timestamp === 'number' && p.timestamp > last) last = p.timestamp;
    }
  }
  return Number.isFinite(last) ? last : 0;
}

/** e.g. `exchange-binance-pol-90d.png`: safe on every platform, whatever the entity name holds. */
export function filenameFor(spec: ChartSpec): string {
  const who =
    spec.cacheKey ??
    (spec.kind === 'watchlist' ? (spec.listName ?? 'watchlist') : spec.kind === 'lostfunds' ? 'lost-funds' : spec.entityName);
  const slug = (s: string) =>
    s
      .normalize('NFKD')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 48)
      .replace(/-+$/, '');
  const parts = [slug(String(who)) || 'chart', spec.kind, slug(String(spec.range))].filter(Boolean);
  return `${parts.join('-')}.png`;
}

function positiveInt(n: number, what: string): number {
  if (!Number.isInteger(n) || n < 50 || n > 4000) throw new ChartRenderError(`chart ${what} must be an integer from 50 to 4000: ${n}`);
  return n;
}
