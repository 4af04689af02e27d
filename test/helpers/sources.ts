import { withCache, type CacheOptions, type CachedDataSource } from '../../src/api/cache/cached-source.js';
import { McpSource } from '../../src/api/mcp/source.js';
import type { HttpClientOptions } from '../../src/api/rest/http.js';
import { RestSource } from '../../src/api/rest/source.js';
import type { Simulator } from '../../src/sim/server.js';
import { secretWatch } from './secret-watch.js';

export function restSource(sim: Simulator, options: Partial<HttpClientOptions> = {}): RestSource {
  // A deliberately wrong key is still the one this client holds, and must not be written anywhere either.
  secretWatch.secret(options.apiKey ?? sim.apiKey, 'upstream API key');
  return new RestSource({ baseUrl: sim.url, apiKey: sim.apiKey, timeoutMs: 3_000, backoffMs: 20, ...options });
}

export function mcpSource(sim: Simulator, options: { rest?: boolean; timeoutMs?: number } = {}): McpSource {
  return new McpSource({
    url: sim.mcpUrl,
    apiKey: sim.apiKey,
    timeoutMs: options.timeoutMs ?? 3_000,
    backoffMs: 20,
    rest: options.rest === false ? null : restSource(sim),
  });
}

export function cached(source: RestSource | McpSource, options: CacheOptions = {}): CachedDataSource {
  return withCache(source, options);
}
