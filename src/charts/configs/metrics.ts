import type { MetricPoint } from '../../api/domain.js';
import { cleanText, formatScore } from '../format.js';
import { align, cleanSamples } from '../series.js';
import {
  altSuffix,
  chartHeading,
  lineChart,
  noDataChart,
  PALETTE,
  subtitleText,
  type BuiltChart,
  type ChartTextOptions,
} from './common.js';

export interface MetricsOptions extends ChartTextOptions {
  /** The metrics to draw, by key, with the label to show; the caller picks the few that matter. */
  metrics: readonly { key: string; label: string }[];
}

/** Metric quality scores over time, one line each: 0..100, higher is better. */
export function describeMetricsChart(points: readonly MetricPoint[], opts: MetricsOptions): BuiltChart {
  const { title, name, range } = chartHeading(opts, 'metric scores', 'this entity');
  const series = opts.metrics
    .slice(0, PALETTE.length)
    .map((m) => ({ label: cleanText(m.label, 40), samples: cleanSamples(points, (p) => p.metrics?.[m.key]) }))
    .filter((s) => s.samples.length > 0);
  if (series.length === 0) return noDataChart(title, `Metric quality scores of ${name} over ${range}`, opts.simulated);
  const config = lineChart({
    title,
    subtitle: subtitleText(['Metric quality scores, 0–100 (higher is better)'], opts.simulated),
    aligned: align(series.map((s) => s.samples)),
    datasets: series.map((s, i) => ({ label: s.label, borderColor: PALETTE[i]!, backgroundColor: PALETTE[i]! })),
    y: { min: 0, max: 100, ticks: { stepSize: 20 } },
    legend: true,
    maxPoints: opts.maxPoints,
  });
  const parts = series.map((s) => `${s.label} ${formatScore(s.samples[0]!.v)} to ${formatScore(s.samples[s.samples.length - 1]!.v)}`);
  return {
    config,
    alt: `Metric quality scores of ${name} over ${range} (0 to 100, higher is better): ${parts.join('; ')}.${altSuffix(opts.simulated)}`,
    empty: false,
  };
}
