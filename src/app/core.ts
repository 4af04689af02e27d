import type { ChartRenderer } from '../charts/index.js';
import { createChartRenderer } from '../charts/index.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { CONSOLE_CALLER, type Caller, type CommandContext } from '../../commands/context.js';
import { runCommand, type RunResult } from '../../commands/run.js';
import type { Metrics } from './metrics.js';
import { RateLimiter } from './rate-limit.js';
import { connectUpstream, type Upstream, type UpstreamHooks } from './upstream.js';

export interface Core {
  ctx: CommandContext;
  upstream: Upstream;
  charts: ChartRenderer;
  /**
   * Command text in (with or without the leading `/pol`), a Reply out; never throws. The caller
   * (who, where) is needed for rate limits and digests; the console is its own caller.
   */
  run(text: string, caller?: Caller): Promise<RunResult>;
  close(): Promise<void>;
}

export interface CoreOptions extends UpstreamHooks {
  log?: Logger;
  now?: () => number;
  metrics?: Metrics;
}

export async function createCore(config: Config, options: CoreOptions = {}): Promise<Core> {
  const { metrics } = options;
  const upstream = await connectUpstream(config, {
    ...options,
    ...(metrics
      ? {
          onExchange: (e) => metrics.upstream.observe({ route: e.route, status: String(e.status) }, e.durationMs / 1000),
          cache: { ...options.cache, onLookup: (method, outcome) => metrics.cache.inc({ method, outcome }) },
        }
      : {}),
  });
  const charts = createChartRenderer({ renderer: config.charts.renderer, quickchartUrl: config.charts.quickchartUrl });
  const ctx: CommandContext = { source: upstream.source, resolver: upstream.resolver, charts, now: options.now ?? Date.now };
  const limiter = config.rateLimits ? new RateLimiter(config.rateLimits) : null;

  async function run(text: string, caller: Caller = CONSOLE_CALLER): Promise<RunResult> {
    const started = performance.now();
    let result: RunResult;
    const decision = limiter && caller.platform !== 'console'
      ? await limiter.check(`${caller.platform}:${caller.userId}`, `${caller.platform}:${caller.channelId}`)
      : ({ ok: true } as const);
    if (!decision.ok) {
      metrics?.rateLimited.inc({ platform: caller.platform, scope: decision.scope });
      result = {
        command: 'rate_limited',
        reply: {
          kind: 'error',
          message:
            decision.scope === 'user'
              ? `You're asking faster than polbot answers. Please wait ${decision.retryAfterSec} s.`
              : `This channel is asking faster than polbot answers. Please wait ${decision.retryAfterSec} s.`,
          hint: 'Limits keep the risk-data service responsive for everyone.',
        },
      };
    } else {
      result = await runCommand(ctx, stripSlash(text), options.log, caller);
    }
    metrics?.commands.observe({ command: result.command, platform: caller.platform, reply: result.reply.kind }, (performance.now() - started) / 1000);
    return result;
  }

  return { ctx, upstream, charts, run, close: () => upstream.close() };
}

/** People paste "/pol binance" into the console too; both forms are accepted. */
function stripSlash(text: string): string {
  return text.replace(/^\s*\/pol\b/i, '').trim();
}
