import type { SimEntity, SimExchange, SimProject } from '../data/model.js';
import { ratingForPol } from '../data/scales.js';
import type { EntityKind, SimStore } from '../data/store.js';

/** Lists, search, trending and ratings: the bodies that enumerate entities. */

export interface Page<T> {
  items: T[];
  page: number;
  page_size: number;
  total: number;
  total_pages: number;
}

export function paginate<T>(items: T[], page: number, pageSize: number): Page<T> {
  const start = (page - 1) * pageSize;
  return {
    items: items.slice(start, start + pageSize),
    page,
    page_size: pageSize,
    total: items.length,
    total_pages: Math.max(1, Math.ceil(items.length / pageSize)),
  };
}

function summary(e: SimEntity) {
  return e.kind === 'project' ? { slug: e.slug, name: e.name, ticker: e.ticker } : { slug: e.slug, name: e.name };
}

export function list(store: SimStore, kind: EntityKind) {
  const items = store.entities(kind).map(summary);
  return { items, total: items.length };
}

export function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

/** Exact matches first, then prefixes, then substrings; the upstream's ranking is not published. */
export function search(store: SimStore, kind: EntityKind, query: string) {
  const q = fold(query.trim());
  const scored: { e: SimEntity; rank: number }[] = [];
  for (const e of store.entities(kind)) {
    const keys = [e.slug, fold(e.name), e.kind === 'project' ? e.ticker.toLowerCase() : ''].filter(Boolean);
    let rank = Infinity;
    for (const k of keys) {
      if (k === q) rank = Math.min(rank, 0);
      else if (k.startsWith(q)) rank = Math.min(rank, 1);
      else if (k.includes(q)) rank = Math.min(rank, 2);
    }
    if (rank !== Infinity) scored.push({ e, rank });
  }
  scored.sort((a, b) => a.rank - b.rank || a.e.name.localeCompare(b.e.name));
  const items = scored.slice(0, 20).map(({ e }) => ({ ...summary(e), type: e.kind }));
  return { query, items, total: items.length };
}

export function trending(store: SimStore, kind: EntityKind) {
  const slugs = kind === 'project' ? store.data.trending.projects : store.data.trending.exchanges;
  return {
    items: slugs.map((slug, i) => ({ ...summary(store.entity(kind, slug)!), rank: i + 1 })),
  };
}

function currentPol(store: SimStore, e: SimEntity): number {
  return e.pol[store.lastIndex]!;
}

/** Rank 1 is the lowest PoL (safest). */
function ranked<T extends SimEntity>(store: SimStore, list: readonly T[]): { e: T; rank: number }[] {
  return [...list]
    .sort((a, b) => currentPol(store, a) - currentPol(store, b) || a.slug.localeCompare(b.slug))
    .map((e, i) => ({ e, rank: i + 1 }));
}

export function exchangeRatingItem(store: SimStore, e: SimExchange, rank: number) {
  const pol = currentPol(store, e);
  return {
    rank,
    slug: e.slug,
    name: e.name,
    pol,
    rating: ratingForPol(pol),
    tradingVolume: e.tradingVolume,
    tradingVolumeChange: e.tradingVolumeChange,
    ...e.markers,
  };
}

export function projectRatingItem(store: SimStore, p: SimProject, rank: number) {
  const pol = currentPol(store, p);
  return {
    rank,
    slug: p.slug,
    name: p.name,
    ticker: p.ticker,
    category: p.category,
    chains: p.chains,
    compliance: p.compliance,
    marketCap: p.market.marketCap,
    pol,
    rating: ratingForPol(pol),
  };
}

export const EXCHANGE_SORTS = ['name', 'pol', 'tradingVolume', 'tradingVolumeChange', 'rank'] as const;
export const PROJECT_SORTS = ['rank', 'name', 'pol', 'marketCap'] as const;
export const MARKET_CAP_BUCKETS = ['large', 'mid', 'small', 'micro'] as const;
export const COMPLIANCE_VALUES = ['registered', 'unregistered'] as const;

export function marketCapBucket(marketCap: number): (typeof MARKET_CAP_BUCKETS)[number] {
  if (marketCap >= 10e9) return 'large';
  if (marketCap >= 1e9) return 'mid';
  if (marketCap >= 1e8) return 'small';
  return 'micro';
}

type Direction = 'ASC' | 'DESC';

function sortBy<T>(items: T[], key: (item: T) => string | number, direction: Direction): T[] {
  const sign = direction === 'ASC' ? 1 : -1;
  return items.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    return sign * (typeof ka === 'string' ? ka.localeCompare(kb as string) : ka - (kb as number));
  });
}

export interface ExchangeRatingsQuery {
  page: number;
  pageSize: number;
  sortBy: (typeof EXCHANGE_SORTS)[number];
  direction: Direction;
  bugBounty?: boolean;
  proofOfReserves?: boolean;
  penetrationTesting?: boolean;
  listedTokens?: number[];
}

export function exchangeRatings(store: SimStore, q: ExchangeRatingsQuery) {
  let rows = ranked(store, store.data.exchanges).map(({ e, rank }) => ({ e, item: exchangeRatingItem(store, e, rank) }));
  if (q.bugBounty !== undefined) rows = rows.filter((r) => r.e.markers.isBugBountyPresent === q.bugBounty);
  if (q.proofOfReserves !== undefined) rows = rows.filter((r) => r.e.markers.isProofOfReservesPresent === q.proofOfReserves);
  if (q.penetrationTesting !== undefined) rows = rows.filter((r) => r.e.markers.isPenetrationTestingPresent === q.penetrationTesting);
  if (q.listedTokens?.length) rows = rows.filter((r) => q.listedTokens!.every((id) => r.e.listed.includes(id)));
  const items = sortBy(
    rows.map((r) => r.item),
    (i) => i[q.sortBy],
    q.direction,
  );
  return paginate(items, q.page, q.pageSize);
}

export interface ProjectRatingsQuery {
  page: number;
  pageSize: number;
  sortBy: (typeof PROJECT_SORTS)[number];
  direction: Direction;
  categories?: string[];
  marketCap?: string[];
  chains?: string[];
  compliance?: string[];
}

const anyOf = (wanted: string[] | undefined, values: string[]) =>
  !wanted?.length || values.some((v) => wanted.some((w) => fold(w) === fold(v)));

export function projectRatings(store: SimStore, q: ProjectRatingsQuery) {
  const rows = ranked(store, store.data.projects).filter(
    ({ e }) =>
      anyOf(q.categories, [e.category]) &&
      anyOf(q.marketCap, [marketCapBucket(e.market.marketCap)]) &&
      anyOf(q.chains, e.chains) &&
      anyOf(q.compliance, [e.compliance]),
  );
  const items = sortBy(
    rows.map(({ e, rank }) => projectRatingItem(store, e, rank)),
    (i) => i[q.sortBy],
    q.direction,
  );
  return paginate(items, q.page, q.pageSize);
}

export function exchangeRatingParameters() {
  return {
    sort_by: { values: [...EXCHANGE_SORTS], default: 'rank' },
    sort_direction: { values: ['ASC', 'DESC'], default: 'ASC' },
    filters: [
      { name: 'is_bug_bounty_present', type: 'boolean' },
      { name: 'is_proof_of_reserves_present', type: 'boolean' },
      { name: 'is_penetration_testing_present', type: 'boolean' },
      { name: 'listed_tokens', type: 'array', source: '/v1/ratings/parameters/tokens' },
    ],
  };
}

export function projectRatingParameters(store: SimStore) {
  const unique = (values: string[]) => [...new Set(values)].sort();
  return {
    sort_by: { values: [...PROJECT_SORTS], default: 'rank' },
    sort_direction: { values: ['ASC', 'DESC'], default: 'DESC' },
    filters: [
      { name: 'categories', type: 'array', values: unique(store.data.projects.map((p) => p.category)) },
      { name: 'market_cap', type: 'array', values: [...MARKET_CAP_BUCKETS] },
      { name: 'chains', type: 'array', values: unique(store.data.projects.flatMap((p) => p.chains)) },
      { name: 'compliance', type: 'array', values: [...COMPLIANCE_VALUES] },
    ],
  };
}

export function topRatings(store: SimStore) {
  return {
    items: ranked(store, store.data.exchanges)
      .slice(0, 10)
      .map(({ e, rank }) => exchangeRatingItem(store, e, rank)),
  };
}

export function ratingTokens(store: SimStore, query: string | undefined) {
  const q = query ? fold(query) : '';
  const items = store.data.tokens
    .filter((t) => !q || fold(t.name).includes(q) || t.ticker.toLowerCase().includes(q))
    .map((t) => ({ id: t.id, name: t.name, ticker: t.ticker }));
  return { items, total: items.length };
}
