import type { RatingToken } from '../../src/api/domain.js';
import type { DataSource } from '../../src/api/source.js';
import type { Action } from '../../src/reply/model.js';
import { pairValue } from './pairs.js';

/**
 * Listed tokens named the way people name them (`BTC`, `bitcoin`, `Wrapped Bitcoin`), turned into
 * the token ids the exchange ratings filter takes, from the service's own token list. A name that
 * is a ticker or a name of exactly one token is that token; anything else is refused with the
 * tokens it could mean, never guessed.
 */

export const TOKENS_FILTER = 'listed_tokens';

const fold = (s: string) =>
  s
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[\s_-]+/g, '');
const label = (t: RatingToken) => `${t.name} (${t.ticker})`;
const MAX_CANDIDATES = 5;

export type TokenPick = { ok: true; tokens: RatingToken[] } | { ok: false; message: string };

export function pickTokens(wanted: readonly string[], tokens: readonly RatingToken[]): TokenPick {
  const picked: RatingToken[] = [];
  for (const raw of wanted) {
    const w = fold(raw);
    const byTicker = tokens.filter((t) => fold(t.ticker) === w);
    const byName = tokens.filter((t) => fold(t.name) === w);
    const exact = byName.length === 1 ? byName : byTicker.length ? byTicker : byName;
    if (exact.length === 1) {
      if (!picked.some((t) => t.id === exact[0]!.id)) picked.push(exact[0]!);
      continue;
    }
    if (exact.length > 1) {
      return {
        ok: false,
        message: `'${raw.slice(0, 30)}' is more than one token: ${exact.slice(0, MAX_CANDIDATES).map(label).join(', ')}. Give its full name.`,
      };
    }
    const near = tokens.filter((t) => fold(t.name).includes(w) || fold(t.ticker).startsWith(w)).slice(0, MAX_CANDIDATES);
    return {
      ok: false,
      message: near.length
        ? `No token is called '${raw.slice(0, 30)}'. Did you mean ${near.map(label).join(', ')}?`
        : `No listed token is called '${raw.slice(0, 30)}'.`,
    };
  }
  return { ok: true, tokens: picked };
}

/** Tokens whose ticker or name starts with what is typed, then those whose name holds it. */
function matchingTokens(typed: string, tokens: readonly RatingToken[]): RatingToken[] {
  const w = fold(typed);
  const starts = tokens.filter((t) => fold(t.ticker).startsWith(w) || fold(t.name).startsWith(w));
  const holds = tokens.filter((t) => !starts.includes(t) && fold(t.name).includes(w));
  return [...starts, ...holds];
}

/** Completions for a tokens value: the matching tokens' tickers. */
export const tokenValues = (typed: string, tokens: readonly RatingToken[]): string[] => matchingTokens(typed, tokens).map((t) => t.ticker);

/**
 * The options of a tokens menu as the person types (`Menu.search`): each the exchange ratings
 * with the lookup's other filters and that token. Empty when the source has no token list or
 * cannot be reached: a menu offers nothing rather than failing.
 */
export async function tokenOptions(source: DataSource, search: string, typed: string, limit: number): Promise<Action[]> {
  const filters = tokensSearchFilters(search);
  if (filters === undefined || !source.supports('ratingTokens', 'exchange')) return [];
  const tokens = await source.ratingTokens().catch(() => undefined);
  if (!tokens) return [];
  return matchingTokens(typed, tokens.data)
    .slice(0, limit)
    .map((t) => ({
      label: `${t.name} (${t.ticker})`,
      run: {
        command: 'ratings',
        args: { list: 'exchanges', filters: [filters, `${TOKENS_FILTER}=${pairValue(t.ticker)}`].filter(Boolean).join(' ') },
      },
    }));
}

/** The lookup for a tokens menu: the exchange ratings' other filters, kept when a token is picked. */
const SEARCH_PREFIX = 'ratings-tokens|';
const MAX_SEARCH = 200;

export function tokensSearch(otherFilters: readonly string[]): string | undefined {
  const search = `${SEARCH_PREFIX}${otherFilters.join(' ')}`;
  return search.length <= MAX_SEARCH ? search : undefined;
}

/** The other filters a tokens lookup was made for, or undefined when `search` is no tokens lookup. */
function tokensSearchFilters(search: string): string | undefined {
  return search.startsWith(SEARCH_PREFIX) ? search.slice(SEARCH_PREFIX.length) : undefined;
}
