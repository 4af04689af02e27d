import type { PolPoint } from '../../api/domain.js';
import { formatPol } from '../format.js';
import { align, cleanSamples } from '../series.js';
import {
  altSuffix,
  chartHeading,
  lineChart,
  noDataChart,
  paddedBounds,
  percentTickCallback,
  SERIES_COLOR,
  subtitleText,
  withAlpha,
  type BuiltChart,
  type ChartTextOptions,
  type LineConfig,
} from './common.js';

/** PoL history of one entity: a probability of loss, so lower is safer. */
export function describePolChart(points: readonly PolPoint[], opts: ChartTextOptions): BuiltChart {
  const { title, name, range } = chartHeading(opts, 'PoL', 'this entity');
  const samples = cleanSamples(points, (p) => p.pol);
  if (samples.length === 0) {
    return noDataChart(title, `PoL of ${name} over ${range}`, opts.simulated);
  }
  const first = samples[0]!.v;
  const last = samples[samples.length - 1]!.v;
  const aligned = align([samples]);
  const config = lineChart({
    title,
    subtitle: subtitleText(['Probability of Loss (lower is safer)', `latest ${formatPol(last)}`], opts.simulated),
    aligned,
    datasets: [
      {
        label: 'PoL',
        borderColor: SERIES_COLOR.pol,
        backgroundColor: withAlpha(SERIES_COLOR.pol, 0.08),
        fill: 'start',
      },
    ],
    y: { ...paddedBounds(aligned.values, { lo: 0, hi: 1 }), ticks: { callback: percentTickCallback } },
    legend: false,
    maxPoints: opts.maxPoints,
  });
  const change = samples.length > 1 ? `from ${formatPol(first)} to ${formatPol(last)}` : `${formatPol(last)}`;
  return { config, alt: `PoL of ${name} over ${range}: ${change}, lower is safer.${altSuffix(opts.simulated)}`, empty: false };
}

export function polChartConfig(points: readonly PolPoint[], opts: ChartTextOptions): LineConfig {
  return describePolChart(points, opts).config;
}
