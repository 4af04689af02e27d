/**
 * Charts for replies and digests: Chart.js configs built from domain points, drawn locally to PNG
 * (`@napi-rs/canvas`) or handed to QuickChart as a URL.
 */
export { createChartRenderer, type StatefulChartRenderer } from './renderer.js';
export {
  ChartRenderError,
  type CategoriesChartSpec,
  type ChartImage,
  type ChartKind,
  type ChartRenderer,
  type ChartRendererOptions,
  type ChartRendererStats,
  type ChartSpec,
  type InflationChartSpec,
  type PolChartSpec,
  type ReservesChartSpec,
  type VoiceChartSpec,
  type WatchlistChartSpec,
  type WatchlistSeries,
} from './types.js';
export { describeChart, type BuiltChart, type ChartTextOptions } from './configs/index.js';
export { polChartConfig, describePolChart } from './configs/pol.js';
export { categoriesChartConfig, describeCategoriesChart } from './configs/categories.js';
export { describeReservesChart } from './configs/reserves.js';
export { describeInflationChart } from './configs/inflation.js';
export { describeVoiceChart } from './configs/voice.js';
export { describeWatchlistChart, MAX_WATCHLIST_LINES } from './configs/watchlist.js';
