import type { CachedDataSource } from '../src/api/cache/cached-source.js';
import type { ChartRenderer } from '../src/charts/index.js';
import type { Resolver } from '../src/resolve/resolver.js';

/** What a command handler may use; it does no I/O except through these. */
export interface CommandContext {
  source: CachedDataSource;
  resolver: Resolver;
  charts: ChartRenderer;
  /** Epoch ms; injectable so tests and digests control time. */
  now: () => number;
}
