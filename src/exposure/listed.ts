import { type ListedAsset, type Page, readable } from '../api/domain.js';
import { allPages } from '../api/pages.js';
import type { DataSource, Fetched } from '../api/source.js';

/**
 * An exchange's listed assets as polbot keeps them: each asset's PoL by the upstream's asset id.
 * The upstream gives listed assets a PoL and no rating and no history, so what got worse is read
 * on PoL, against readings polbot kept itself.
 */

/** Each listed asset's PoL (0..1, lower is safer) by its id. */
export type ListedPols = Readonly<Record<string, number>>;

/** A listed asset as a reading holds it: its name as shown (with its ticker) and its PoL. */
export interface ListedPol {
  name: string;
  pol: number;
}

/** The listed assets of one read, by id; an asset whose PoL could not be read is left out. */
export type ListedNow = Readonly<Record<string, ListedPol>>;

/** At or above this PoL a listed asset is worth naming on its own: the level the docs and examples use. */
export const NOTABLE_POL = 0.2;

/** How many pages of 50 one read takes at most (2,500 assets); a longer list is read in part and says so. */
const MAX_PAGES = 50;

export interface ListedRead {
  now: ListedNow;
  /** Every page as fetched, for footers (source, age, simulated) and rows the upstream sent unreadable. */
  pages: Fetched<Page<ListedAsset>>[];
  /** Assets listed, whatever could be read of them. */
  total: number;
  /** Listed assets whose PoL came back unreadable, left out of `now`. */
  unreadable: number;
  /** False when the list has more pages than one read takes. */
  complete: boolean;
}

/**
 * Every listed asset of an exchange, page by page through the source it is given (the cached one:
 * the pages of one exchange are shared by every rule and every look within the cache's lifetime).
 * Sorted by name, so that a list moving between two pages' requests neither repeats nor skips an asset.
 */
export async function readListed(source: DataSource, slug: string): Promise<ListedRead> {
  const pages = await allPages(
    (page, pageSize) => source.listedAssets(slug, { page, pageSize, sortBy: 'name', sortDirection: 'ASC' }),
    MAX_PAGES,
  );
  const now: Record<string, ListedPol> = {};
  let unreadable = 0;
  const seen = new Set<number>();
  for (const asset of pages.flatMap((p) => p.data.items)) {
    if (seen.has(asset.id)) continue;
    seen.add(asset.id);
    const pol = readable(asset.polScore ?? undefined);
    if (pol === undefined) unreadable++;
    else now[String(asset.id)] = { name: asset.ticker ? `${asset.name} (${asset.ticker})` : asset.name, pol };
  }
  const totalPages = pages[0]?.data.totalPages ?? 1;
  return { now, pages, total: seen.size, unreadable, complete: totalPages <= MAX_PAGES };
}

export const polsOf = (listed: ListedNow): ListedPols => Object.fromEntries(Object.entries(listed).map(([id, a]) => [id, a.pol]));

/** A listed asset whose PoL rose: from what an earlier reading held to now. */
export interface Rise {
  id: string;
  name: string;
  from: number;
  to: number;
}

/** Rounding noise is no change: a rise smaller than this is none. */
const NOISE = 1e-9;

/**
 * The listed assets whose PoL rose by at least `minRise` since `then`, worst (largest rise) first.
 * An asset `then` did not hold (listed since, or unreadable then) has nothing to compare with.
 */
export function risen(now: ListedNow, then: ListedPols, minRise: number): Rise[] {
  const out: Rise[] = [];
  for (const [id, a] of Object.entries(now)) {
    const from = then[id];
    if (from === undefined) continue;
    const rise = a.pol - from;
    if (rise <= NOISE || rise < minRise - NOISE) continue;
    out.push({ id, name: a.name, from, to: a.pol });
  }
  return out.sort((x, y) => y.to - y.from - (x.to - x.from) || y.to - x.to || x.name.localeCompare(y.name));
}

/** The listed assets at or above `level` now, highest PoL first. */
export function atOrAbove(now: ListedNow, level: number): (ListedPol & { id: string })[] {
  return Object.entries(now)
    .filter(([, a]) => a.pol >= level - NOISE)
    .map(([id, a]) => ({ id, ...a }))
    .sort((x, y) => y.pol - x.pol || x.name.localeCompare(y.name));
}
