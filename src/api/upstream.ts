import { withCache, type CacheOptions, type CachedDataSource } from './cache/cached-source.js';
import { type BreakerOptions, failover } from './failover.js';
import type { McpSource } from './mcp/source.js';
import type { OnUnreadable } from './read-answer.js';
import type { HttpClientOptions } from './rest/http.js';
import { RestSource } from './rest/source.js';
import type { Simulator } from '../sim/server.js';

export interface Upstream {
  source: CachedDataSource;
  /** The raw sources, preferred first, for diagnosis and the contract check. */
  members: readonly (RestSource | McpSource)[];
  /** How names are resolved over this source: without REST no list of exchanges exists. */
  resolution: { exchangeNames: boolean; upstreamProjectResolution: boolean };
  /** The in-process simulator in demo mode. */
  sim: Simulator | null;
  /** Every secret the upstream connection uses, for log scrubbing. */
  secrets: string[];
  close(): Promise<void>;
}

/** Where the risk data comes from, as the environment configures it. */
export interface UpstreamConfig {
  /**
   * Null: the simulator starts in-process (demo mode). A null `baseUrl` means the tool server alone
   * (POL_SOURCE=mcp with POL_MCP_URL or POL_MCP_COMMAND and no REST gateway).
   */
  upstream: { baseUrl: string | null; apiKey: string | null } | null;
  source: 'rest' | 'mcp';
  mcp: { url?: string; command?: string };
  timeoutMs: number;
}

export interface UpstreamHooks {
  onExchange?: HttpClientOptions['onExchange'];
  onUnreadable?: OnUnreadable;
  /** Every tool call, by route: the contract check uses it to say which tool an answer came from. */
  onMcpCall?: (route: string) => void;
  cache?: CacheOptions;
  breaker?: BreakerOptions;
}

/**
 * The configured upstream, or the simulator in-process when none is (demo mode). REST, the tool
 * server, or both: with both, the preferred one (`POL_SOURCE`) answers what it can and the other
 * fills the gaps and takes over a part when the preferred one fails.
 */
export async function connectUpstream(config: UpstreamConfig, hooks: UpstreamHooks = {}): Promise<Upstream> {
  // The simulator and the MCP client are loaded only when used: together they are about 18 MB of
  // resident memory that a bot talking REST to a real upstream never needs.
  const sim = config.upstream ? null : await (await import('../sim/server.js')).startSimulator({ port: 0, host: '127.0.0.1' });
  const baseUrl = sim ? sim.url : config.upstream!.baseUrl;
  const apiKey = sim ? sim.apiKey : config.upstream!.apiKey;
  const rest = baseUrl
    ? new RestSource({
        baseUrl,
        apiKey: apiKey ?? '',
        timeoutMs: config.timeoutMs,
        ...(hooks.onExchange ? { onExchange: hooks.onExchange } : {}),
        ...(hooks.onUnreadable ? { onUnreadable: hooks.onUnreadable } : {}),
      })
    : null;

  // In demo mode the tool server is connected only when asked for: REST alone needs no MCP client.
  const mcpUrl = config.mcp.url ?? (config.mcp.command || config.source !== 'mcp' ? undefined : sim?.mcpUrl);
  let mcp: McpSource | null = null;
  if (mcpUrl || config.mcp.command) {
    const { McpSource } = await import('./mcp/source.js');
    mcp = new McpSource({
      ...(mcpUrl ? { url: mcpUrl } : {}),
      ...(config.mcp.command ? { command: config.mcp.command } : {}),
      ...(apiKey ? { apiKey } : {}),
      timeoutMs: config.timeoutMs,
      ...(hooks.onUnreadable ? { onUnreadable: hooks.onUnreadable } : {}),
      ...(hooks.onMcpCall ? { onCall: hooks.onMcpCall } : {}),
    });
  }
  const members = (config.source === 'mcp' ? [mcp, rest] : [rest, mcp]).filter((s): s is RestSource | McpSource => s !== null);
  const source = withCache(failover(members, hooks.breaker), hooks.cache);
  return {
    source,
    members,
    // Without REST no list of exchanges exists: exchanges are then named by slug only.
    resolution: { exchangeNames: rest !== null, upstreamProjectResolution: config.source === 'mcp' },
    sim,
    secrets: apiKey ? [apiKey] : [],
    async close() {
      await source.close();
      await sim?.close();
    },
  };
}
