import type { PolPoint } from '../../api/domain.js';
import { formatPol } from '../format.js';
import {
  paddedBounds,
  percentTickCallback,
  SERIES_COLOR,
  singleSeriesChart,
  withAlpha,
  type BuiltChart,
  type ChartTextOptions,
  type LineConfig,
} from './common.js';

/** PoL history of one entity: a probability of loss, so lower is safer. */
export function describePolChart(points: readonly PolPoint[], opts: ChartTextOptions, line?: { value: number; label: string }): BuiltChart {
  return singleSeriesChart(points, opts, {
    ...(line ? { reference: line } : {}),
    what: 'PoL',
    fallbackName: 'this entity',
    subject: (name, range) => `PoL of ${name} over ${range}`,
    value: (p) => p.pol,
    format: formatPol,
    measure: 'Probability of Loss (lower is safer)',
    dataset: { label: 'PoL', borderColor: SERIES_COLOR.pol, backgroundColor: withAlpha(SERIES_COLOR.pol, 0.08), fill: 'start' },
    y: (aligned) => ({ ...paddedBounds(aligned.values, { lo: 0, hi: 1 }), ticks: { callback: percentTickCallback } }),
    altNote: ', lower is safer',
  });
}

export function polChartConfig(points: readonly PolPoint[], opts: ChartTextOptions): LineConfig {
  return describePolChart(points, opts).config;
}
