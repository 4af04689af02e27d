import type { AlertService } from '../../src/alerts/service.js';
import type { EntityKind } from '../../src/api/domain.js';
import type { CachedDataSource } from '../../src/api/cache/cached-source.js';
import type { Resolver } from '../../src/resolve/resolver.js';
import type { Logger } from '../../src/log.js';
import { within } from '../../src/time/within.js';
import { completeEntities } from '../kit/choices.js';
import type { CompletionContext } from '../kit/context.js';
import type { Args, Choice } from '../kit/spec.js';
import type { Registry } from './registry.js';

/**
 * Suggestions for an option being typed: the option's own `complete`, or what its type suggests
 * (names, for entity options). Adapters ask by command and option name and render the choices;
 * which option suggests what is the command's business alone.
 */

type Autocomplete = (command: string, option: string, typed: string, args: Args) => Promise<Choice[]>;

/** How often suggestions may reload an entity list, however fast people type. */
const LIST_REFRESH_MS = 60_000;
/**
 * A completion reads only what is at hand; one that still has not answered by now offers nothing,
 * well within the 3 s chat platforms wait for suggestions.
 */
const COMPLETION_MS = 1_000;

/**
 * What a completion may read: the cached source, the names at hand, and the alert service where
 * there is one, read when a completion asks, as a command reads it from the same context.
 */
export interface AtHand {
  source: CachedDataSource;
  resolver: Resolver;
  alerts?: Pick<AlertService, 'destinations'> | undefined;
}

export function createAutocomplete(registry: Registry, atHand: AtHand, log?: Logger): Autocomplete {
  const { source, resolver } = atHand;
  const lastRefresh = new Map<EntityKind, number>();
  const ctx: CompletionContext = {
    get alerts() {
      return atHand.alerts;
    },
    source,
    suggest: (prefix, limit) => resolver.suggest(prefix, limit),
    canList: (kind) => source.supports('list', kind),
    refreshList: (kind) => {
      const now = Date.now();
      if (!source.supports('list', kind) || now - (lastRefresh.get(kind) ?? 0) < LIST_REFRESH_MS) return;
      lastRefresh.set(kind, now);
      void source
        .list(kind)
        .catch((err: unknown) => log?.warn({ kind, err }, 'entity list could not be loaded; suggestions offer what is cached'));
    },
  };

  return async (command, option, typed, args) => {
    const o = registry.get(command)?.options.find((x) => x.name === option);
    if (!o || o.type === 'choice' || o.type === 'integer') return [];
    try {
      if (!o.complete) return o.type === 'text' ? [] : completeEntities(o, ctx, typed);
      const choices = await within(Promise.resolve(o.complete(ctx, typed, args)), COMPLETION_MS);
      if (!choices) log?.warn({ command, option }, 'suggestions took too long; answering with none');
      return choices ?? [];
    } catch (err) {
      log?.warn({ command, option, err }, 'suggestions failed; answering with none');
      return [];
    }
  };
}
