import type { ValuePoint } from '../../api/domain.js';
import { formatPercentUnits } from '../format.js';
import {
  paddedBounds,
  percentUnitTickCallback,
  SERIES_COLOR,
  singleSeriesChart,
  type BuiltChart,
  type ChartTextOptions,
} from './common.js';

/** Token inflation in percent per year (the upstream's unit: 3.5 means 3.5 %/yr). */
export function describeInflationChart(points: readonly ValuePoint[], opts: ChartTextOptions): BuiltChart {
  return singleSeriesChart(points, opts, {
    what: 'token inflation',
    fallbackName: 'this project',
    subject: (name, range) => `Token inflation of ${name} over ${range}`,
    value: (p) => p.value,
    format: formatPercentUnits,
    measure: 'Token inflation, % per year',
    dataset: { label: 'Inflation', borderColor: SERIES_COLOR.inflation, backgroundColor: SERIES_COLOR.inflation },
    y: (aligned, first, last) => ({
      ...paddedBounds(aligned.values, first >= 0 && last >= 0 ? { lo: 0 } : {}),
      ticks: { callback: percentUnitTickCallback },
    }),
    altNote: '',
    unit: ' per year',
  });
}
