import { withCache, type CacheOptions, type CachedDataSource } from '../../src/api/cache/cached-source.js';
import { type BreakerOptions, failover, type FailoverSource } from '../../src/api/failover.js';
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

/** The tool server alone. */
export function mcpSource(sim: Simulator, options: { timeoutMs?: number } = {}): McpSource {
  return new McpSource({ url: sim.mcpUrl, apiKey: sim.apiKey, timeoutMs: options.timeoutMs ?? 3_000, backoffMs: 20 });
}

/** The tool server first, REST for the rest and when the tool server fails, as `POL_SOURCE=mcp` with both configured. */
export function mcpWithRest(sim: Simulator, breaker: BreakerOptions = {}): FailoverSource {
  return failover([mcpSource(sim), restSource(sim)], breaker);
}

export function cached(
  source: RestSource | McpSource | FailoverSource,
  options: CacheOptions = {},
  breaker: BreakerOptions = {},
): CachedDataSource {
  return withCache('breakers' in source ? source : failover([source], breaker), options);
}
