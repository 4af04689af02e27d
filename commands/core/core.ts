import type { EntityKind, EntityRef } from '../../src/api/domain.js';
import { previewValue } from '../../src/api/rules.js';
import type { Metrics } from '../../src/ops/metrics.js';
import { connectUpstream, type Upstream, type UpstreamHooks } from '../../src/api/upstream.js';
import type { ChartRenderer } from '../../src/charts/index.js';
import { createChartRenderer } from '../../src/charts/index.js';
import type { Config } from '../../src/config.js';
import type { Logger } from '../../src/log.js';
import type { Action, Reply } from '../../src/reply/model.js';
import { CONSOLE_CALLER, type Caller, type CommandContext } from '../kit/context.js';
import type { Args, Choice, Invocation } from '../kit/spec.js';
import { tokenOptions } from '../kit/ratings-tokens.js';
import { COMMANDS } from './commands.js';
import { createAutocomplete } from './complete.js';
import { Registry } from './registry.js';
import { invoke, runText, typedAction, withCommandText, type RunResult } from './run.js';

/**
 * The command core as adapters see it: text or a typed invocation in, a Reply out; entity
 * suggestions for autocomplete; the registry for building each platform's command list.
 */
export interface Core {
  ctx: CommandContext;
  upstream: Upstream;
  charts: ChartRenderer;
  registry: Registry;
  /**
   * Command text in, as typed after the slash command, a Reply out; never throws. The caller
   * (who, where) is needed for rate limits and digests; the console is its own caller.
   */
  run(text: string, caller?: Caller): Promise<RunResult>;
  /** A typed invocation (Discord options, a button's command); never throws. */
  invoke(invocation: Invocation, caller?: Caller): Promise<RunResult>;
  /** Best matches from the entity lists already at hand; never waits on the upstream (autocomplete). */
  suggest(prefix: string, limit: number): EntityRef[];
  /** Whether the configured source can list entities of `kind` at all (the tool server alone lists no exchanges). */
  canList(kind: EntityKind): boolean;
  /** Loads an entity list in the background so suggestions have something to offer. */
  refreshList(kind: EntityKind): Promise<void>;
  /**
   * Suggestions for an option of a command as it is typed, `args` holding the other options given:
   * the option's own, or names for an entity option. Never waits on the upstream (what is not at
   * hand is fetched in the background for the next keystroke) and never throws.
   */
  autocomplete(command: string, option: string, typed: string, args: Args): Promise<Choice[]>;
  /**
   * The options of a menu that is looked up as the person types (`Menu.search`), best first, each
   * with its typed command; never throws (an upstream failure offers nothing).
   */
  lookup(search: string, typed: string, limit: number): Promise<Action[]>;
  /**
   * A reply built outside a command (an alert message) with every command it names written out
   * typed, as `run` gives them, so that its buttons run on every surface.
   */
  complete(reply: Reply): Reply;
  close(): Promise<void>;
}

export interface CoreOptions extends UpstreamHooks {
  log?: Logger;
  now?: () => number;
  metrics?: Metrics;
}

export async function createCore(config: Config, options: CoreOptions = {}): Promise<Core> {
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
  const preload = upstream.resolver
    .preload()
    .catch((err: unknown) => log?.info({ err }, 'the name lists could not be loaded at start; they load on first use'));
  await Promise.race([preload, new Promise((resolve) => setTimeout(resolve, config.timeoutMs).unref())]);
  const charts = createChartRenderer({ renderer: config.charts.renderer, quickchartUrl: config.charts.quickchartUrl });
  const ctx: CommandContext = { source: upstream.source, resolver: upstream.resolver, charts, now: options.now ?? Date.now };
  // Loaded only where limits apply: the console and `polbot ask` have none.
  const limiter = config.rateLimits ? new (await import('../../src/ops/rate-limit.js')).RateLimiter(config.rateLimits) : null;
  const registry = new Registry(COMMANDS);

  async function guarded(caller: Caller, work: () => Promise<RunResult>): Promise<RunResult> {
    const started = performance.now();
    let result: RunResult;
    const decision =
      limiter && caller.platform !== 'console'
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
      result = await work();
    }
    metrics?.commands.observe(
      { command: result.command, platform: caller.platform, reply: result.reply.kind },
      (performance.now() - started) / 1000,
    );
    return result;
  }

  return {
    ctx,
    upstream,
    charts,
    registry,
    run: (text, caller = CONSOLE_CALLER) => guarded(caller, () => runText(ctx, registry, text, caller, log)),
    invoke: (invocation, caller = CONSOLE_CALLER) => guarded(caller, () => invoke(ctx, registry, invocation, caller, log)),
    suggest: (prefix, limit) => upstream.resolver.suggest(prefix, limit),
    canList: (kind) => upstream.source.supports('list', kind),
    refreshList: (kind) =>
      upstream.source.list(kind).then(
        () => undefined,
        (err: unknown) => log?.warn({ kind, err }, 'entity list could not be loaded; suggestions offer what is cached'),
      ),
    autocomplete: createAutocomplete(registry, upstream, log),
    // Each option carries its typed form, as every command a reply names does.
    complete: (reply) => withCommandText(reply, registry),
    lookup: async (search, typed, limit) =>
      (await tokenOptions(upstream.source, search, typed, limit)).map((a) => typedAction(registry, a)),
    close: () => upstream.close(),
  };
}

/** What was sent, short enough for one log line. */
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
