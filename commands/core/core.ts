import { riskScore, type RiskScore } from './score.js';
import { converse } from './converse.js';
import type { EntityKind, EntityRef } from '../../src/api/domain.js';
import type { AlertService } from '../../src/alerts/service.js';
import type { Upstream } from '../../src/api/upstream.js';
import type { ChartRenderer } from '../../src/charts/index.js';
import type { DigestService } from '../../src/digest/service.js';
import type { ListedReadings } from '../../src/exposure/readings.js';
import type { Resolver } from '../../src/resolve/resolver.js';
import type { Logger } from '../../src/log.js';
import type { Action, Reply } from '../../src/reply/model.js';
import { CONSOLE_CALLER, type Caller, type CommandContext } from '../kit/context.js';
import type { Args, Choice, Invocation } from '../kit/spec.js';
import { tokenOptions } from '../kit/ratings-tokens.js';
import { createAutocomplete } from './complete.js';
import type { Registry } from './registry.js';
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
  /**
   * What a person wrote in their own words (a mention, a direct message): a plain question as its
   * command, the slash grammar as written, or a short answer with questions close to it; never throws.
   */
  converse(text: string, caller?: Caller): Promise<RunResult>;
  /** One entity's PoL, rating and a one-line summary as values (a workflow step's outputs), or the words a person would get instead. */
  score(name: string): Promise<RiskScore>;
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

/** A limit on how fast people and channels may ask; the core asks it before any command runs. */
export interface Limiter {
  check(userKey: string, channelKey: string): Promise<{ ok: true } | { ok: false; retryAfterSec: number; scope: 'user' | 'channel' }>;
}

/** What the core counts, for whoever keeps the metrics. */
export interface CoreMeters {
  rateLimited(platform: string, scope: 'user' | 'channel'): void;
  answered(labels: { command: string; platform: string; reply: string }, seconds: number): void;
}

/**
 * Everything the core uses, built by the composition root and handed in: the core builds, starts
 * and connects nothing itself.
 */
export interface CoreParts {
  /** The data source (cached, with failover) and what it is connected to. */
  upstream: Upstream;
  /** Names to entities over that source. */
  resolver: Resolver;
  charts: ChartRenderer;
  registry: Registry;
  limiter?: Limiter;
  meters?: CoreMeters;
  log?: Logger;
  now?: () => number;
  /** Scheduled digests, where a store and a platform to deliver to exist. */
  digests?: DigestService;
  /** Alert rules and incidents, likewise. */
  alerts?: AlertService;
  /** Where `exposure` keeps its readings of exchanges' listed assets. */
  listed: ListedReadings;
}

export function createCore(parts: CoreParts): Core {
  const { upstream, resolver, charts, registry, limiter, meters, log } = parts;
  const ctx: CommandContext = {
    source: upstream.source,
    resolver,
    charts,
    now: parts.now ?? Date.now,
    listed: parts.listed,
    ...(parts.digests ? { digests: parts.digests } : {}),
    ...(parts.alerts ? { alerts: parts.alerts } : {}),
  };

  async function guarded(caller: Caller, work: () => Promise<RunResult>): Promise<RunResult> {
    const started = performance.now();
    let result: RunResult;
    const decision =
      limiter && caller.platform !== 'console'
        ? await limiter.check(`${caller.platform}:${caller.userId}`, `${caller.platform}:${caller.channelId}`)
        : ({ ok: true } as const);
    if (!decision.ok) {
      meters?.rateLimited(caller.platform, decision.scope);
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
    meters?.answered(
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
    converse: (text, caller = CONSOLE_CALLER) => guarded(caller, () => converse(ctx, registry, text, caller, log)),
    score: (name) => riskScore(ctx, registry, name),
    invoke: (invocation, caller = CONSOLE_CALLER) => guarded(caller, () => invoke(ctx, registry, invocation, caller, log)),
    suggest: (prefix, limit) => resolver.suggest(prefix, limit),
    canList: (kind) => upstream.source.supports('list', kind),
    refreshList: (kind) =>
      upstream.source.list(kind).then(
        () => undefined,
        (err: unknown) => log?.warn({ kind, err }, 'entity list could not be loaded; suggestions offer what is cached'),
      ),
    autocomplete: createAutocomplete(registry, ctx, log),
    // Each option carries its typed form, as every command a reply names does.
    complete: (reply) => withCommandText(reply, registry),
    lookup: async (search, typed, limit) =>
      (await tokenOptions(upstream.source, search, typed, limit)).map((a) => typedAction(registry, a)),
    // The upstream was handed in for the core's lifetime; closing the core releases it.
    close: () => upstream.close(),
  };
}
