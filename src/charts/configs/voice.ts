import type { ValuePoint } from '../../api/domain.js';
import { formatScore } from '../format.js';
import { SERIES_COLOR, singleSeriesChart, withAlpha, type BuiltChart, type ChartTextOptions } from './common.js';

/** Proof of Voice score, 0..100, higher is better. */
export function describeVoiceChart(points: readonly ValuePoint[], opts: ChartTextOptions): BuiltChart {
  return singleSeriesChart(points, opts, {
    what: 'Proof of Voice',
    fallbackName: 'this project',
    subject: (name, range) => `Proof of Voice score of ${name} over ${range}`,
    value: (p) => p.value,
    format: formatScore,
    measure: 'Proof of Voice score, 0–100 (higher is better)',
    dataset: {
      label: 'Proof of Voice',
      borderColor: SERIES_COLOR.voice,
      backgroundColor: withAlpha(SERIES_COLOR.voice, 0.08),
      fill: 'start',
    },
    y: () => ({ min: 0, max: 100, ticks: { stepSize: 20 } }),
    altNote: ' (0 to 100, higher is better)',
  });
}
