import type { CachedDataSource } from '../api/cache/cached-source.js';
import type { ChartRenderer } from '../charts/index.js';

/** What digests need from the core: the data (through the same cache as cards) and the charts. */
export interface DigestDeps {
  source: CachedDataSource;
  charts: ChartRenderer;
}
