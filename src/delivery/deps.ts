import type { CachedDataSource } from '../api/cache/cached-source.js';
import type { ChartRenderer } from '../charts/index.js';

/**
 * What a post made unasked (a digest, an alert) is drawn from: the data, through the same cache as
 * cards, and the charts.
 */
export interface PostDeps {
  source: CachedDataSource;
  charts: ChartRenderer;
}
