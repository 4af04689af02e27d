import type { PolPoint } from '../../api/domain.js';
import { cleanText, formatPol, rangeLabel } from '../format.js';
import { align, cleanSamples, type Sample } from '../series.js';
import {
  PALETTE,
  altSuffix,
  chartTitle,
  noDataChart,
  lineChart,
  paddedBounds,
  logPercentTickCallback,
  percentTickCallback,
  roundLogTicks,
  subtitleText,
  type YAxis,
  type BuiltChart,
} from './common.js';

/** More lines than colours would be unreadable; the riskiest entities are the ones worth seeing. */
export const MAX_WATCHLIST_LINES = PALETTE.length;

export interface WatchlistOptions {
  range: string;
  listName?: string;
  title?: string;
  simulated?: boolean;
  maxPoints?: number;
}

export interface WatchlistInput {
  name: string;
  points: readonly PolPoint[];
}

/** Several entities' PoL on one chart (scheduled digests): lower is safer. */
export function describeWatchlistChart(series: readonly WatchlistInput[], opts: WatchlistOptions): BuiltChart {
  const listName = cleanText(opts.listName ?? '', 48) || 'Watchlist';
  const title = chartTitle({ entityName: listName, range: opts.range, ...(opts.title !== undefined ? { title: opts.title } : {}) }, 'PoL');
  const range = rangeLabel(opts.range);
  const withData = (Array.isArray(series) ? series : [])
    .map((s, order) => ({ name: cleanText(s?.name, 32) || 'Unnamed', samples: cleanSamples<PolPoint>(s?.points, (p) => p.pol), order }))
    .filter((s) => s.samples.length > 0);
  if (withData.length === 0) {
    return noDataChart(title, `PoL of the ${listName} entities over ${range}`, opts.simulated);
  }
  const latest = (s: { samples: Sample[] }) => s.samples[s.samples.length - 1]!.v;
  // Keep the highest current PoL, then restore the caller's order so colours follow the list.
  const shown = [...withData]
    .sort((a, b) => latest(b) - latest(a) || a.order - b.order)
    .slice(0, MAX_WATCHLIST_LINES)
    .sort((a, b) => a.order - b.order);
  const dropped = withData.length - shown.length;
  const aligned = align(shown.map((s) => s.samples));
  const y = yAxisFor(aligned.values);
  const config = lineChart({
    title,
    subtitle: subtitleText(
      [
        y.type === 'logarithmic' ? 'Probability of Loss (lower is safer), log scale' : 'Probability of Loss (lower is safer)',
        dropped > 0 && `top ${shown.length} of ${withData.length} by current PoL shown`,
      ],
      opts.simulated,
    ),
    aligned,
    datasets: shown.map((s, i) => ({
      label: s.name,
      borderColor: PALETTE[i]!,
      backgroundColor: PALETTE[i]!,
      borderWidth: shown.length > 6 ? 1.5 : 2,
    })),
    y,
    legend: true,
    maxPoints: opts.maxPoints,
  });
  const byRisk = [...shown].sort((a, b) => latest(b) - latest(a));
  const list = byRisk.map((s) => `${s.name} ${formatPol(latest(s))}`).join(', ');
  const more = dropped > 0 ? ` (${dropped} more not shown)` : '';
  return {
    config,
    alt: `PoL of ${withData.length} entities over ${range}, lower is safer; latest, highest first: ${list}${more}.${altSuffix(opts.simulated)}`,
    empty: false,
  };
}

/**
 * Watchlists mix entities whose PoL differ by orders of magnitude (0.1% next to 30%); on a linear
 * axis the safer ones flatten into the floor, so a wide spread switches to a log axis.
 */
const LOG_SCALE_SPREAD = 20;

function yAxisFor(values: readonly (number | null)[][]): YAxis {
  let lo = Infinity;
  let hi = -Infinity;
  for (const row of values) {
    for (const v of row) {
      if (v === null) continue;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  }
  if (lo > 0 && hi / lo > LOG_SCALE_SPREAD) {
    return {
      type: 'logarithmic',
      suggestedMin: lo / 1.3,
      suggestedMax: Math.min(1, hi * 1.3),
      afterBuildTicks: roundLogTicks,
      // The 1-2-5 ticks are already thinned; Chart.js's auto-skip would drop every other one.
      ticks: { callback: logPercentTickCallback, autoSkip: false },
    };
  }
  return { ...paddedBounds(values, { lo: 0, hi: 1 }), ticks: { callback: percentTickCallback } };
}
