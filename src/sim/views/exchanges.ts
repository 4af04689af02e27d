import type { SimExchange } from '../data/model.js';
import { round } from '../data/scales.js';
import type { SimStore } from '../data/store.js';
import { byCategory, scoreObject } from './entity.js';
import { exchangeRatingItem, fold, paginate } from './listing.js';

/** Exchange records, sections and exchange-only aggregates. */

function rankOf(store: SimStore, e: SimExchange): number {
  const pol = e.pol[store.lastIndex]!;
  return (
    1 +
    store.data.exchanges.filter((o) => {
      const other = o.pol[store.lastIndex]!;
      return other < pol || (other === pol && o.slug < e.slug);
    }).length
  );
}

export function record(store: SimStore, e: SimExchange) {
  const item = exchangeRatingItem(store, e, rankOf(store, e));
  return {
    slug: e.slug,
    name: e.name,
    type: e.type,
    country: e.country,
    established: e.established,
    website: `https://${e.slug.replace(/-/g, '')}.example`,
    rank: item.rank,
    pol: item.pol,
    rating: item.rating,
    tradingVolume24h: e.tradingVolume,
    tradingVolumeChange: e.tradingVolumeChange,
    ...e.markers,
  };
}

function reservePosition(store: SimStore, e: SimExchange) {
  if (e.reserves.length === 0) return null;
  const reservesUsd = e.reserves[store.lastIndex]!;
  const liabilitiesUsd = e.liabilities[store.lastIndex]!;
  return { reservesUsd, liabilitiesUsd, reserveRatio: round(reservesUsd / liabilitiesUsd, 4) };
}

export function dashboard(store: SimStore, e: SimExchange) {
  return {
    ...record(store, e),
    categories: byCategory(store, e).categories,
    reserves: reservePosition(store, e),
    listedAssetsCount: e.listed.length,
  };
}

export function transparency(store: SimStore, e: SimExchange) {
  return {
    slug: e.slug,
    score: scoreObject(e.categories.transparency, store.lastIndex),
    isProofOfReservesPresent: e.markers.isProofOfReservesPresent,
    ...e.transparency,
  };
}

export function security(store: SimStore, e: SimExchange) {
  return {
    slug: e.slug,
    score: scoreObject(e.categories.security, store.lastIndex),
    isBugBountyPresent: e.markers.isBugBountyPresent,
    isPenetrationTestingPresent: e.markers.isPenetrationTestingPresent,
    ...e.security,
  };
}

export function solvency(store: SimStore, e: SimExchange) {
  const position = reservePosition(store, e);
  return {
    slug: e.slug,
    score: scoreObject(e.categories.solvency, store.lastIndex),
    isProofOfReservesPresent: e.markers.isProofOfReservesPresent,
    reservesUsd: position?.reservesUsd ?? null,
    liabilitiesUsd: position?.liabilitiesUsd ?? null,
    reserveRatio: position?.reserveRatio ?? null,
  };
}

export function liabilitiesReservesChart(store: SimStore, e: SimExchange, days: number | undefined) {
  const points = [];
  if (e.reserves.length > 0) {
    const [start, end] = store.windowIndices(days);
    for (let i = start; i < end; i++) {
      points.push({ timestamp: store.data.days[i]!, reserves: e.reserves[i]!, liabilities: e.liabilities[i]! });
    }
  }
  return { slug: e.slug, days: days ?? null, points };
}

const categoryId = (name: string) => fold(name).replace(/[^a-z0-9]+/g, '-');

export interface ListedAssetsQuery {
  page: number;
  pageSize: number;
  search?: string;
  categories?: string[];
  sortBy: 'name' | 'marketCap' | 'polScore';
  direction: 'ASC' | 'DESC';
}

export function listedAssets(store: SimStore, e: SimExchange, q: ListedAssetsQuery) {
  const byId = new Map(store.data.tokens.map((t) => [t.id, t]));
  const needle = q.search ? fold(q.search) : '';
  const wanted = q.categories?.map(categoryId);
  const items = e.listed
    .map((id) => byId.get(id)!)
    .filter((t) => !needle || fold(t.name).includes(needle) || t.ticker.toLowerCase().includes(needle))
    .filter((t) => !wanted?.length || wanted.includes(categoryId(t.category)))
    .map((t) => ({
      id: t.id,
      name: t.name,
      ticker: t.ticker,
      categories: [{ id: categoryId(t.category), name: t.category }],
      marketCap: t.marketCap,
      polScore: store.tokenPol(t),
    }));
  const sign = q.direction === 'ASC' ? 1 : -1;
  items.sort((a, b) => sign * (q.sortBy === 'name' ? a.name.localeCompare(b.name) : a[q.sortBy] - b[q.sortBy]));
  return paginate(items, q.page, q.pageSize);
}

export function listedAssetCategories(store: SimStore, e: SimExchange) {
  const counts = new Map<string, number>();
  for (const id of e.listed) {
    const t = store.data.tokens[id - 1]!;
    counts.set(t.category, (counts.get(t.category) ?? 0) + 1);
  }
  const items = [...counts.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, count]) => ({ id: categoryId(name), name, count }));
  return { slug: e.slug, items };
}

export function transparencyStats(store: SimStore) {
  const list = store.data.exchanges;
  const count = (f: (e: SimExchange) => boolean) => list.filter(f).length;
  const avg = list.reduce((s, e) => s + e.categories.transparency.scores[store.lastIndex]!, 0) / list.length;
  return {
    exchanges: list.length,
    withProofOfReserves: count((e) => e.markers.isProofOfReservesPresent),
    withBugBounty: count((e) => e.markers.isBugBountyPresent),
    withPenetrationTesting: count((e) => e.markers.isPenetrationTestingPresent),
    averageTransparencyScore: round(avg, 1),
    timestamp: store.asOf,
  };
}

export function lostFunds(store: SimStore) {
  const incidents = store.data.lostFunds;
  const byYear = new Map<number, { year: number; amountUsd: number; incidents: number }>();
  for (const i of incidents) {
    const year = Number(i.date.slice(0, 4));
    const row = byYear.get(year) ?? { year, amountUsd: 0, incidents: 0 };
    row.amountUsd += i.amountUsd;
    row.incidents += 1;
    byYear.set(year, row);
  }
  return {
    totalUsd: incidents.reduce((s, i) => s + i.amountUsd, 0),
    incidents,
    byYear: [...byYear.values()].sort((a, b) => a.year - b.year),
  };
}
