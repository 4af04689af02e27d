import type { CategoryPoint } from '../../api/domain.js';
import { cleanText, formatScore } from '../format.js';
import { align, cleanSamples } from '../series.js';
import {
  altSuffix,
  CATEGORY_COLOR,
  chartHeading,
  lineChart,
  noDataChart,
  PALETTE,
  subtitleText,
  type BuiltChart,
  type ChartTextOptions,
  type LineConfig,
} from './common.js';

/** Projects' and exchanges' categories in the order cards list them. */
const KNOWN_ORDER = ['security', 'financial', 'operational', 'reputational', 'regulatory', 'transparency', 'solvency'];

export interface CategoriesOptions extends ChartTextOptions {
  categories?: readonly string[];
}

function categoriesIn(points: readonly CategoryPoint[]): string[] {
  const seen = new Set<string>();
  for (const p of Array.isArray(points) ? points : []) {
    const scores = p && typeof p === 'object' ? p.scores : undefined;
    if (scores && typeof scores === 'object') for (const k of Object.keys(scores)) seen.add(k);
  }
  const known = KNOWN_ORDER.filter((k) => seen.has(k));
  const other = [...seen].filter((k) => !KNOWN_ORDER.includes(k)).sort();
  return [...known, ...other];
}

export function categoryLabel(category: string): string {
  const c = cleanText(category, 32);
  return c.charAt(0).toUpperCase() + c.slice(1);
}

/** Category quality scores over time, one line each: 0..100, higher is better. */
export function describeCategoriesChart(points: readonly CategoryPoint[], opts: CategoriesOptions): BuiltChart {
  const { title, name, range } = chartHeading(opts, 'category scores', 'this entity');
  const wanted = (opts.categories ?? categoriesIn(points)).slice(0, PALETTE.length);
  const series = wanted
    .map((category) => ({ category, samples: cleanSamples(points, (p) => p.scores?.[category]?.score) }))
    .filter((s) => s.samples.length > 0);
  if (series.length === 0) {
    return noDataChart(title, `Category quality scores of ${name} over ${range}`, opts.simulated);
  }
  const aligned = align(series.map((s) => s.samples));
  let spare = 0;
  const config = lineChart({
    title,
    subtitle: subtitleText(['Category quality scores, 0–100 (higher is better)'], opts.simulated),
    aligned,
    datasets: series.map((s) => {
      const color = CATEGORY_COLOR[s.category] ?? PALETTE[(PALETTE.length - 1 - spare++) % PALETTE.length]!;
      return { label: categoryLabel(s.category), borderColor: color, backgroundColor: color };
    }),
    y: { min: 0, max: 100, ticks: { stepSize: 20 } },
    legend: true,
    maxPoints: opts.maxPoints,
  });
  const parts = series.map((s) => {
    const a = s.samples[0]!.v;
    const b = s.samples[s.samples.length - 1]!.v;
    return s.samples.length > 1 ? `${s.category} ${formatScore(a)} to ${formatScore(b)}` : `${s.category} ${formatScore(b)}`;
  });
  return {
    config,
    alt: `Category quality scores of ${name} over ${range} (0 to 100, higher is better): ${parts.join('; ')}.${altSuffix(opts.simulated)}`,
    empty: false,
  };
}

export function categoriesChartConfig(points: readonly CategoryPoint[], opts: CategoriesOptions): LineConfig {
  return describeCategoriesChart(points, opts).config;
}
