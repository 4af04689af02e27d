import type { ValuePoint } from '../../api/domain.js';
import { formatPercentUnits } from '../format.js';
import { align, cleanSamples } from '../series.js';
import {
  altSuffix,
  chartHeading,
  lineChart,
  noDataChart,
  paddedBounds,
  percentUnitTickCallback,
  SERIES_COLOR,
  subtitleText,
  type BuiltChart,
  type ChartTextOptions,
  type LineConfig,
} from './common.js';

/** Token inflation in percent per year (the upstream's unit: 3.5 means 3.5 %/yr). */
export function describeInflationChart(points: readonly ValuePoint[], opts: ChartTextOptions): BuiltChart {
  const { title, name, range } = chartHeading(opts, 'token inflation', 'this project');
  const samples = cleanSamples(points, (p) => p.value);
  if (samples.length === 0) {
    return noDataChart(title, `Token inflation of ${name} over ${range}`, opts.simulated);
  }
  const first = samples[0]!.v;
  const last = samples[samples.length - 1]!.v;
  const aligned = align([samples]);
  const config = lineChart({
    title,
    subtitle: subtitleText(['Token inflation, % per year', `latest ${formatPercentUnits(last)}`], opts.simulated),
    aligned,
    datasets: [{ label: 'Inflation', borderColor: SERIES_COLOR.inflation, backgroundColor: SERIES_COLOR.inflation }],
    y: { ...paddedBounds(aligned.values, first >= 0 && last >= 0 ? { lo: 0 } : {}), ticks: { callback: percentUnitTickCallback } },
    legend: false,
    maxPoints: opts.maxPoints,
  });
  const change = samples.length > 1 ? `from ${formatPercentUnits(first)} to ${formatPercentUnits(last)} per year` : `${formatPercentUnits(last)} per year`;
  return { config, alt: `Token inflation of ${name} over ${range}: ${change}.${altSuffix(opts.simulated)}`, empty: false };
}

export function inflationChartConfig(points: readonly ValuePoint[], opts: ChartTextOptions): LineConfig {
  return describeInflationChart(points, opts).config;
}
