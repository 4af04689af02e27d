import type { ValuePoint } from '../../api/domain.js';
import { formatScore } from '../format.js';
import { align, cleanSamples } from '../series.js';
import {
  altSuffix,
  chartHeading,
  lineChart,
  noDataChart,
  SERIES_COLOR,
  subtitleText,
  withAlpha,
  type BuiltChart,
  type ChartTextOptions,
  type LineConfig,
} from './common.js';

/** Proof of Voice score, 0..100, higher is better. */
export function describeVoiceChart(points: readonly ValuePoint[], opts: ChartTextOptions): BuiltChart {
  const { title, name, range } = chartHeading(opts, 'Proof of Voice', 'this project');
  const samples = cleanSamples(points, (p) => p.value);
  if (samples.length === 0) {
    return noDataChart(title, `Proof of Voice score of ${name} over ${range}`, opts.simulated);
  }
  const first = samples[0]!.v;
  const last = samples[samples.length - 1]!.v;
  const config = lineChart({
    title,
    subtitle: subtitleText(['Proof of Voice score, 0–100 (higher is better)', `latest ${formatScore(last)}`], opts.simulated),
    aligned: align([samples]),
    datasets: [{ label: 'Proof of Voice', borderColor: SERIES_COLOR.voice, backgroundColor: withAlpha(SERIES_COLOR.voice, 0.08), fill: 'start' }],
    y: { min: 0, max: 100, ticks: { stepSize: 20 } },
    legend: false,
    maxPoints: opts.maxPoints,
  });
  const change = samples.length > 1 ? `from ${formatScore(first)} to ${formatScore(last)}` : formatScore(last);
  return { config, alt: `Proof of Voice score of ${name} over ${range}: ${change} (0 to 100, higher is better).${altSuffix(opts.simulated)}`, empty: false };
}

export function voiceChartConfig(points: readonly ValuePoint[], opts: ChartTextOptions): LineConfig {
  return describeVoiceChart(points, opts).config;
}
