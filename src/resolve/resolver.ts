import Fuse from 'fuse.js';
import type { EntityKind, EntityRef, ProjectResolution } from '../api/domain.js';
import { UpstreamError } from '../api/errors.js';
import type { CachedDataSource } from '../api/cache/cached-source.js';
import { isValidSlug } from '../api/rest/paths.js';
import { clean, compact, MAX_QUERY_LENGTH, normalize } from './normalize.js';

export type Resolution =
  | { status: 'resolved'; query: string; entity: EntityRef }
  | { status: 'ambiguous'; query: string; candidates: EntityRef[] }
  | { status: 'not_found'; query: string; suggestions: EntityRef[]; reason?: string };

export interface ResolverOptions {
  /**
   * Whether exchange names can be looked up (false when only the MCP tool server is reachable:
   * no tool lists exchanges). Then only `exchange <slug>` is accepted, as the person's confirmation.
   */
  exchangeNames: boolean;
  /** Whether projects are resolved by the upstream's `resolve_project_slug` rather than our lists. */
  upstreamProjectResolution: boolean;
}

const MAX_CANDIDATES = 25;
const MAX_SUGGESTIONS = 5;

/** One list's matches; `suggestions` when the upstream already chose them, else fuzzy over `list` on demand. */
interface Pool {
  exact: EntityRef[];
  partial: EntityRef[];
  list: EntityRef[];
  suggestions?: EntityRef[];
}

interface Indexed {
  ref: EntityRef;
  keys: string[];
  words: string[];
}

/**
 * Turns what a person typed into exactly one entity, or refuses with candidates. Only an exact
 * slug, name or ticker of a single entity resolves; anything fuzzy is offered, never picked.
 */
export class Resolver {
  constructor(
    private readonly source: CachedDataSource,
    private readonly options: ResolverOptions,
  ) {}

  /**
   * Loads the name lists resolution reads, so that the first card after start costs one upstream
   * round rather than two (lists, then data). Afterwards the cache serves them stale while it
   * fetches fresh ones.
   */
  async preload(): Promise<void> {
    const kinds: EntityKind[] = [
      ...(this.options.upstreamProjectResolution ? [] : ['project' as const]),
      ...(this.options.exchangeNames ? ['exchange' as const] : []),
    ];
    await Promise.all(kinds.map((k) => this.source.list(k)));
  }

  async resolve(input: string, kind?: EntityKind): Promise<Resolution> {
    const query = clean(input);
    if (!query) return { status: 'not_found', query, suggestions: [], reason: 'empty' };
    if (query.length > MAX_QUERY_LENGTH) return { status: 'not_found', query: query.slice(0, 40), suggestions: [], reason: 'too_long' };
    if (!compact(query)) return { status: 'not_found', query, suggestions: [], reason: 'no_letters' };

    if (kind === 'exchange' && !this.options.exchangeNames) return this.confirmExchangeSlug(query);

    const pools = await this.pools(query, kind);
    const exact = pools.flatMap((p) => p.exact);
    if (exact.length === 1) return { status: 'resolved', query, entity: exact[0]! };
    if (exact.length > 1) return { status: 'ambiguous', query, candidates: exact.slice(0, MAX_CANDIDATES) };

    const partial = dedupe(pools.flatMap((p) => p.partial));
    if (partial.length > 0) return { status: 'ambiguous', query, candidates: partial.slice(0, MAX_CANDIDATES) };

    // Fuzzy matching only once nothing matched in any list: a name found among projects needs no
    // suggestions from the exchanges.
    const suggestions = dedupe(pools.flatMap((p) => p.suggestions ?? fuzzy(p.list, query))).slice(0, MAX_SUGGESTIONS);
    return {
      status: 'not_found',
      query,
      suggestions,
      ...(kind !== 'project' && !this.options.exchangeNames ? { reason: 'exchange_names_unavailable' } : {}),
    };
  }

  /**
   * The projects and exchanges a piece of text names (a chat message): runs of one to three words
   * that are exactly a name or slug, and tickers written as tickers (`$ETH`, or in capitals, so
   * that "one" or "gas" in a sentence are words, not tokens). A run naming several entities is
   * returned as ambiguous, never picked. Longer runs win: "Lido DAO" is not also "Lido".
   */
  async findIn(text: string, limit = 10): Promise<{ found: EntityRef[]; ambiguous: { query: string; candidates: EntityRef[] }[] }> {
    const kinds = (['project', 'exchange'] as const).filter(
      (k) => this.source.supports('list', k) && (k === 'project' || this.options.exchangeNames),
    );
    const lists = (await Promise.all(kinds.map((k) => this.source.list(k)))).flatMap((l) => l.data);
    const byKey = new Map<string, EntityRef[]>();
    const byTicker = new Map<string, EntityRef[]>();
    const add = (map: Map<string, EntityRef[]>, key: string, ref: EntityRef) => {
      const at = map.get(key) ?? [];
      if (!at.some((r) => r.kind === ref.kind && r.slug === ref.slug)) at.push(ref);
      map.set(key, at);
    };
    for (const ref of lists) {
      for (const key of [compact(ref.slug), compact(ref.name)]) if (key.length >= 3) add(byKey, key, ref);
      if (ref.ticker) add(byTicker, compact(ref.ticker), ref);
    }
    const words = text
      .slice(0, 4000)
      .split(/[^\p{L}\p{N}$.-]+/u)
      .filter(Boolean);
    const used = new Set<number>();
    const found: EntityRef[] = [];
    const ambiguous: { query: string; candidates: EntityRef[] }[] = [];
    const seen = new Set<string>();
    for (let n = 3; n >= 1; n--) {
      for (let i = 0; i + n <= words.length; i++) {
        if ([...Array(n).keys()].some((k) => used.has(i + k))) continue;
        const run = words
          .slice(i, i + n)
          .join(' ')
          .replace(/^[$]|[.-]+$/g, '');
        const word = words[i]!;
        const tickerLike = n === 1 && (/^\$[A-Za-z0-9]{2,10}$/.test(word) || /^[A-Z0-9]{2,10}$/.test(word.replace(/[.-]+$/, '')));
        const hits = byKey.get(compact(run)) ?? (tickerLike ? byTicker.get(compact(run)) : undefined);
        if (!hits?.length) continue;
        for (let k = 0; k < n; k++) used.add(i + k);
        const key = hits
          .map((h) => `${h.kind}:${h.slug}`)
          .sort()
          .join('|');
        if (seen.has(key)) continue;
        seen.add(key);
        if (hits.length === 1) found.push(hits[0]!);
        else ambiguous.push({ query: run, candidates: hits.slice(0, MAX_CANDIDATES) });
      }
    }
    return { found: found.slice(0, limit), ambiguous };
  }

  /** Best matches from whatever lists are already cached; never waits on the upstream. */
  suggest(prefix: string, limit = 25): EntityRef[] {
    const lists = (['project', 'exchange'] as const).flatMap((k) => this.source.cache.peek('list', k)?.data ?? []);
    const q = compact(clean(prefix).slice(0, MAX_QUERY_LENGTH));
    if (!q) return lists.slice(0, limit);
    const scored: { ref: EntityRef; rank: number }[] = [];
    for (const ref of lists) {
      const { keys, words } = indexOf(ref);
      let rank = Infinity;
      if (keys.includes(q)) rank = 0;
      else if (keys.some((k) => k.startsWith(q))) rank = 1;
      else if (words.some((w) => w.startsWith(q))) rank = 2;
      else if (keys.some((k) => k.includes(q))) rank = 3;
      if (rank !== Infinity) scored.push({ ref, rank });
    }
    scored.sort((a, b) => a.rank - b.rank || a.ref.name.length - b.ref.name.length || a.ref.name.localeCompare(b.ref.name));
    return scored.slice(0, limit).map((s) => s.ref);
  }

  private async pools(query: string, kind?: EntityKind) {
    const kinds: EntityKind[] = kind ? [kind] : this.options.exchangeNames ? ['project', 'exchange'] : ['project'];
    return Promise.all(
      kinds.map((k) =>
        k === 'project' && this.options.upstreamProjectResolution ? this.upstreamProjects(query) : this.matchList(k, query),
      ),
    );
  }

  private async matchList(kind: EntityKind, query: string): Promise<Pool> {
    const list = (await this.source.list(kind)).data;
    const q = compact(query);
    const qWords = normalize(query).split(' ');
    const exact: EntityRef[] = [];
    const partial: EntityRef[] = [];
    for (const ref of list) {
      const { keys, words } = indexOf(ref);
      if (keys.includes(q)) exact.push(ref);
      // Every typed word starts a word of the name (or the slug/name starts with the whole query).
      else if (keys.some((k) => k.startsWith(q)) || qWords.every((qw) => words.some((w) => w.startsWith(qw)))) partial.push(ref);
    }
    return { exact, partial, list };
  }

  private async upstreamProjects(query: string): Promise<Pool> {
    let res: ProjectResolution | null;
    try {
      res = (await this.source.resolveProject(query)).data;
    } catch (err) {
      // The tool server failing is no reason not to answer: the project list can still match.
      if (err instanceof UpstreamError && err.isUpstreamFailure && this.source.supports('list', 'project'))
        return this.matchList('project', query);
      throw err;
    }
    if (!res) return this.matchList('project', query);
    if (res.status === 'resolved' && res.resolved) return { exact: [res.resolved], partial: [], list: [] };
    if (res.status === 'ambiguous') return { exact: [], partial: res.matches, list: [] };
    return { exact: [], partial: [], list: [], suggestions: res.matches.slice(0, MAX_SUGGESTIONS) };
  }

  private async confirmExchangeSlug(query: string): Promise<Resolution> {
    const slug = query.toLowerCase();
    if (!isValidSlug(slug)) return { status: 'not_found', query, suggestions: [], reason: 'exchange_names_unavailable' };
    try {
      const record = (await this.source.record('exchange', slug)).data;
      return { status: 'resolved', query, entity: { kind: 'exchange', slug: record.slug, name: record.name } };
    } catch (err) {
      if (err instanceof UpstreamError && (err.kind === 'not_found' || err.kind === 'not_available')) {
        // Without a record we still hold the person's explicit slug: it is a confirmation, not a guess.
        if (err.kind === 'not_available') return { status: 'resolved', query, entity: { kind: 'exchange', slug, name: slug } };
        return { status: 'not_found', query, suggestions: [], reason: 'exchange_names_unavailable' };
      }
      throw err;
    }
  }
}

const indexCache = new WeakMap<EntityRef, Indexed>();

function indexOf(ref: EntityRef): Indexed {
  let entry = indexCache.get(ref);
  if (!entry) {
    const keys = [compact(ref.slug), compact(ref.name), ...(ref.ticker ? [compact(ref.ticker)] : [])].filter(Boolean);
    const words = [...normalize(ref.name).split(' '), ...normalize(ref.slug).split(' ')].filter(Boolean);
    entry = { ref, keys, words };
    indexCache.set(ref, entry);
  }
  return entry;
}

/** One index per list the cache hands out: a list is replaced, never changed, when it is refetched. */
const fuseCache = new WeakMap<readonly EntityRef[], Fuse<EntityRef>>();

function fuzzy(list: EntityRef[], query: string): EntityRef[] {
  let fuse = fuseCache.get(list);
  if (!fuse) {
    fuse = new Fuse(list, { keys: ['name', 'slug', 'ticker'], threshold: 0.4, ignoreLocation: true, includeScore: true });
    fuseCache.set(list, fuse);
  }
  return fuse.search(normalize(query), { limit: MAX_SUGGESTIONS }).map((r) => r.item);
}

function dedupe(refs: EntityRef[]): EntityRef[] {
  const seen = new Set<string>();
  return refs.filter((r) => {
    const key = `${r.kind}:${r.slug}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
