import { Writable } from 'node:stream';
import type { Core } from '../../commands/core/index.js';
import { startCore } from '../../app/core.js';
import type { StatefulChartRenderer } from '../../src/charts/index.js';
import { loadConfig, type Config } from '../../app/config.js';
import { createLogger, type Logger } from '../../src/log.js';
import type { SimHandle } from './sim.js';

/**
 * Production logging (info, with redaction and scrubbing) into a sink that drops the bytes: the
 * benchmark pays what serialising logs costs, not what a terminal costs.
 */
export function benchLogger(): Logger {
  const sink = new Writable({ write: (_chunk, _enc, done) => done() });
  return createLogger({ level: 'info', destination: sink });
}

/** The configuration an operator would use against this upstream, from the documented variables. */
export function benchConfig(sim: SimHandle, env: Record<string, string> = {}): Config {
  return loadConfig({ POL_API_BASE_URL: sim.url, POL_API_KEY: sim.apiKey, LOG_LEVEL: 'info', ...env });
}

export async function benchCore(sim: SimHandle, log: Logger, env: Record<string, string> = {}): Promise<Core> {
  return startCore(benchConfig(sim, env), { log });
}

/** Both caches a card goes through: upstream data and rendered charts. */
export function clearCaches(core: Core): void {
  core.upstream.source.cache.clear();
  chartsOf(core).clear();
}

export function chartsOf(core: Core): StatefulChartRenderer {
  const charts = core.charts as Partial<StatefulChartRenderer>;
  if (typeof charts.clear !== 'function' || typeof charts.stats !== 'function')
    throw new Error('the chart renderer has no clear()/stats()');
  return charts as StatefulChartRenderer;
}
