import { COMMANDS, createCore, Registry, type CommandSpec, type Core, type CoreParts } from '../commands/core/index.js';
import { previewValue } from '../src/api/rules.js';
import { connectUpstream, type UpstreamHooks } from '../src/api/upstream.js';
import { createChartRenderer } from '../src/charts/index.js';
import { MemoryListedReadings } from '../src/exposure/memory.js';
import { Resolver } from '../src/resolve/resolver.js';
import type { Config } from './config.js';
import type { Logger } from '../src/log.js';
import type { Metrics } from '../src/ops/metrics.js';

export interface CoreOptions extends UpstreamHooks {
  log?: Logger;
  now?: () => number;
  metrics?: Metrics;
  /** The commands to serve; every module in commands/ unless told otherwise. */
  commands?: readonly CommandSpec[];
}

/**
 * Everything the command core uses, built from the configuration: the upstream (or the simulator
 * in demo mode) behind its cache, the chart renderer, the rate limiter, the registry and the
 * meters. The digest and alert services are built from these parts and handed to the core with
 * them, so nothing is added to a core after it is made.
 */
export async function coreParts(config: Config, options: CoreOptions = {}): Promise<CoreParts> {
  const { metrics, log } = options;
  const upstream = await connectUpstream(config, {
    ...options,
    onUnreadable: (route, fields, rows) => {
      log?.warn(
        { route, fields: fields.map((f) => ({ field: f.field, reason: f.reason, value: previewValue(f.value) })), rows },
        'the upstream sent values outside their domain; they are shown as unreadable',
      );
      for (const f of fields) metrics?.unreadable.inc({ route, field: boundedLabel(f.field) });
      if (rows > 0) metrics?.unreadable.inc({ route, field: '(row)' }, rows);
    },
    ...(metrics
      ? {
          onExchange: (e) => metrics.upstream.observe({ route: e.route, status: String(e.status) }, e.durationMs / 1000),
          cache: { ...options.cache, onLookup: (method, outcome) => metrics.cache.inc({ method, outcome }) },
        }
      : {}),
  });
  metrics?.watchCircuits(() => upstream.source.cache.stats().breakers);
  // Start-up waits for the name lists at most one upstream deadline: an upstream that is down
  // must not keep polbot from starting (the lists then load on first use).
  // Not a warning: the start-up check reports what is wrong with the upstream, once.
  const resolver = new Resolver(upstream.source, upstream.resolution);
  const preload = resolver
    .preload()
    .catch((err: unknown) => log?.info({ err }, 'the name lists could not be loaded at start; they load on first use'));
  await Promise.race([preload, new Promise((resolve) => setTimeout(resolve, config.timeoutMs).unref())]);
  // Loaded only where limits apply: the console and `polbot ask` have none.
  const limiter = config.rateLimits ? new (await import('../src/ops/rate-limit.js')).RateLimiter(config.rateLimits) : undefined;
  return {
    upstream,
    resolver,
    charts: createChartRenderer({ renderer: config.charts.renderer, quickchartUrl: config.charts.quickchartUrl }),
    registry: new Registry(options.commands ?? COMMANDS),
    // Kept in memory until a database is handed in (`polbot start` with a chat platform).
    listed: new MemoryListedReadings(),
    ...(limiter ? { limiter } : {}),
    ...(metrics
      ? {
          meters: {
            rateLimited: (platform, scope) => metrics.rateLimited.inc({ platform, scope }),
            answered: (labels, seconds) => metrics.commands.observe(labels, seconds),
          },
        }
      : {}),
    ...(log ? { log } : {}),
    ...(options.now ? { now: options.now } : {}),
  };
}

/** A core with no digest or alert service: the console, `polbot ask`, tools and tests of commands alone. */
export async function startCore(config: Config, options: CoreOptions = {}): Promise<Core> {
  return createCore(await coreParts(config, options));
}

const seenLabels = new Set<string>();
const MAX_FIELD_LABELS = 200;

/**
 * Field paths come from the upstream's own keys (category names in a chart point, social
 * signals), so a hostile answer could mint labels without end: past a bound they count as "other".
 */
function boundedLabel(field: string): string {
  if (seenLabels.has(field)) return field;
  if (seenLabels.size >= MAX_FIELD_LABELS || field.length > 80) return 'other';
  seenLabels.add(field);
  return field;
}
