import type { ChartRenderer } from '../charts/index.js';
import { createChartRenderer } from '../charts/index.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { CommandContext } from '../../commands/context.js';
import { runCommand, type RunResult } from '../../commands/run.js';
import { connectUpstream, type Upstream, type UpstreamHooks } from './upstream.js';

export interface Core {
  ctx: CommandContext;
  upstream: Upstream;
  charts: ChartRenderer;
  /** Command text in (without the leading `/pol`), a Reply out; never throws. */
  run(text: string): Promise<RunResult>;
  close(): Promise<void>;
}

export interface CoreOptions extends UpstreamHooks {
  log?: Logger;
  now?: () => number;
}

export async function createCore(config: Config, options: CoreOptions = {}): Promise<Core> {
  const upstream = await connectUpstream(config, options);
  const charts = createChartRenderer({ renderer: config.charts.renderer, quickchartUrl: config.charts.quickchartUrl });
  const ctx: CommandContext = { source: upstream.source, resolver: upstream.resolver, charts, now: options.now ?? Date.now };
  return {
    ctx,
    upstream,
    charts,
    run: (text) => runCommand(ctx, stripSlash(text), options.log),
    close: () => upstream.close(),
  };
}

/** People paste "/pol binance" into the console too; both forms are accepted. */
function stripSlash(text: string): string {
  return text.replace(/^\s*\/pol\b/i, '').trim();
}
