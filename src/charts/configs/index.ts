import type { ChartSpec } from '../types.js';
import { describeCategoriesChart } from './categories.js';
import type { BuiltChart } from './common.js';
import { describeHeatmapChart } from './heatmap.js';
import { describeInflationChart } from './inflation.js';
import { describeLostFundsChart } from './lost-funds.js';
import { describeMetricsChart } from './metrics.js';
import { describePolChart } from './pol.js';
import { describeReservesChart } from './reserves.js';
import { describeVoiceChart } from './voice.js';
import { describeWatchlistChart } from './watchlist.js';

export type { BuiltChart, ChartTextOptions } from './common.js';

/** The config, alt text and emptiness of a spec, whichever renderer draws it. */
export function describeChart(spec: ChartSpec, layout: { maxPoints?: number } = {}): BuiltChart {
  const text = {
    range: spec.range,
    ...layout,
    ...(spec.title !== undefined ? { title: spec.title } : {}),
    ...(spec.simulated ? { simulated: true } : {}),
  };
  switch (spec.kind) {
    case 'pol':
      return describePolChart(spec.points, { ...text, entityName: spec.entityName }, spec.line);
    case 'categories':
      return describeCategoriesChart(spec.points, {
        ...text,
        entityName: spec.entityName,
        ...(spec.categories ? { categories: spec.categories } : {}),
      });
    case 'heatmap':
      return describeHeatmapChart(spec.weeks, { ...text, entityName: spec.entityName });
    case 'metrics':
      return describeMetricsChart(spec.points, { ...text, entityName: spec.entityName, metrics: spec.metrics });
    case 'reserves':
      return describeReservesChart(spec.points, { ...text, entityName: spec.entityName });
    case 'inflation':
      return describeInflationChart(spec.points, { ...text, entityName: spec.entityName });
    case 'voice':
      return describeVoiceChart(spec.points, { ...text, entityName: spec.entityName });
    case 'lostfunds':
      return describeLostFundsChart(spec.years, { ...text, entityName: '' });
    case 'watchlist':
      return describeWatchlistChart(spec.series, { ...text, ...(spec.listName !== undefined ? { listName: spec.listName } : {}) });
  }
}
