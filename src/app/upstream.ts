import { withCache, type CacheOptions, type CachedDataSource } from '../api/cache/cached-source.js';
import type { McpSource } from '../api/mcp/source.js';
import type { HttpClientOptions } from '../api/rest/http.js';
import { RestSource } from '../api/rest/source.js';
import type { Config } from '../config.js';
import { Resolver } from '../resolve/resolver.js';
import type { Simulator } from '../sim/server.js';

export interface Upstream {
  source: CachedDataSource;
  resolver: Resolver;
  /** The in-process simulator in demo mode. */
  sim: Simulator | null;
  /** Every secret the upstream connection uses, for log scrubbing. */
  secrets: string[];
  close(): Promise<void>;
}

export interface UpstreamHooks {
  onExchange?: HttpClientOptions['onExchange'];
  cache?: CacheOptions;
}

/**
 * The configured upstream, or the simulator in-process when none is (demo mode). REST, or MCP with
 * REST filling the gaps wherever a base URL exists.
 */
export async function connectUpstream(config: Config, hooks: UpstreamHooks = {}): Promise<Upstream> {
  // The simulator and the MCP client are loaded only when used: together they are about 18 MB of
  // resident memory that a bot talking REST to a real upstream never needs.
  const sim = config.upstream ? null : await (await import('../sim/server.js')).startSimulator({ port: 0, host: '127.0.0.1' });
  const baseUrl = sim ? sim.url : config.upstream!.baseUrl;
  const apiKey = sim ? sim.apiKey : config.upstream!.apiKey;
  const rest = baseUrl
    ? new RestSource({ baseUrl, apiKey: apiKey ?? '', timeoutMs: config.timeoutMs, ...(hooks.onExchange ? { onExchange: hooks.onExchange } : {}) })
    : null;

  let raw: RestSource | McpSource;
  if (config.source === 'mcp') {
    const mcpUrl = config.mcp.url ?? (config.mcp.command ? undefined : sim?.mcpUrl);
    const { McpSource } = await import('../api/mcp/source.js');
    raw = new McpSource({
      ...(mcpUrl ? { url: mcpUrl } : {}),
      ...(config.mcp.command ? { command: config.mcp.command } : {}),
      ...(apiKey ? { apiKey } : {}),
      timeoutMs: config.timeoutMs,
      rest,
    });
  } else {
    raw = rest!;
  }
  const source = withCache(raw, hooks.cache);
  // Without REST no list of exchanges exists: exchanges are then named by slug only.
  const resolver = new Resolver(source, { exchangeNames: rest !== null, upstreamProjectResolution: config.source === 'mcp' });
  return {
    source,
    resolver,
    sim,
    secrets: apiKey ? [apiKey] : [],
    async close() {
      await source.close();
      await sim?.close();
    },
  };
}
