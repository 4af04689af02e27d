import { type EntityKind, type EntityRef, isUnreadable } from '../api/domain.js';
import { settle } from '../api/settle.js';
import type { DataSource } from '../api/source.js';
import { type ListedPols, polsOf, readListed } from '../exposure/listed.js';
import { provenanceOf, type Provenance } from '../reply/footer.js';
import type { Condition } from './condition.js';
import type { Reading } from './evaluate.js';

/** Which parts of an entity the conditions watching it need; nothing else is fetched. */
export interface Needs {
  pol: boolean;
  categories: boolean;
  flags: boolean;
  /** An exchange's listed assets, every page of them. */
  listed: boolean;
}

export function needsOf(conditions: readonly Condition[]): Needs {
  const needs: Needs = { pol: false, categories: false, flags: false, listed: false };
  for (const c of conditions) {
    if (c.kind === 'category_below') needs.categories = true;
    else if (c.kind === 'new_red_flag') needs.flags = true;
    else if (c.kind === 'listed_downgrade' || c.kind === 'listed_above') needs.listed = true;
    else if (c.kind === 'any_change') {
      needs.pol = true;
      needs.flags = true;
    } else needs.pol = true;
  }
  return needs;
}

/**
 * What of a condition's needs the source has no operation for on these kinds (the tool server has
 * no PoL), in words, or null: such a rule could never fire, so it is refused when added.
 */
export function unreadablePart(source: DataSource, condition: Condition, kinds: readonly EntityKind[]): string | null {
  const needs = needsOf([condition]);
  for (const kind of new Set(kinds)) {
    if (needs.pol && !source.supports('polCurrent', kind)) return 'PoL and ratings';
    if (needs.categories && !source.supports('byCategory', kind)) return 'category scores';
    if (needs.flags && kind === 'project' && !source.supports('redFlags', kind)) return 'red flags';
    if (needs.listed && kind === 'exchange' && !source.supports('listedAssets', kind)) return 'listed assets';
  }
  return null;
}

/** A reading, with where and when each of its parts came from (for the footer of what it opens or moves). */
export interface Read {
  reading: Reading;
  provenance: Provenance[];
  /** The listed assets' PoL as the upstream gave them just now (not stale), to keep as a reading of the exchange. */
  listedFresh?: ListedPols;
}

/**
 * One reading of an entity, its parts fetched in one parallel round through the shared cached
 * source (identical requests coalesce). A part that fails, or comes back unreadable, is null:
 * a condition on it cannot tell, and no alert fires or clears on a value nobody could read.
 */
export async function readEntity(source: DataSource, entity: EntityRef, needs: Needs, atSec: number): Promise<Read> {
  const { kind, slug } = entity;
  const [pol, categories, flags, listed] = await Promise.all([
    needs.pol && source.supports('polCurrent', kind) ? settle(source.polCurrent(kind, slug)) : undefined,
    needs.categories && source.supports('byCategory', kind) ? settle(source.byCategory(kind, slug)) : undefined,
    needs.flags && kind === 'project' && source.supports('redFlags', kind) ? settle(source.redFlags(slug)) : undefined,
    needs.listed && kind === 'exchange' && source.supports('listedAssets', kind) ? settle(readListed(source, slug)) : undefined,
  ]);
  const value = pol?.ok ? pol.value.data : undefined;
  const scores = categories?.ok
    ? Object.fromEntries(
        categories.value.data.categories.flatMap((c) => (isUnreadable(c.score.score) ? [] : [[c.category, c.score.score as number]])),
      )
    : null;
  const f = flags?.ok ? flags.value.data : undefined;
  const flagList =
    kind === 'exchange'
      ? []
      : f && !isUnreadable(f.marketMaker) && !isUnreadable(f.investor)
        ? [...f.marketMaker.map((x) => `Market maker: ${x}`), ...f.investor.map((x) => `Investor: ${x}`)]
        : null;
  return {
    reading: {
      at: atSec,
      pol: value && !isUnreadable(value.pol) ? value.pol : null,
      rating: value && !isUnreadable(value.rating) ? value.rating : null,
      flags: needs.flags ? flagList : null,
      categories: needs.categories ? scores : null,
      ...(needs.listed ? { listed: listed?.ok ? listed.value.now : null } : {}),
    },
    provenance: [
      ...[pol, categories, flags].flatMap((part) => (part?.ok ? [provenanceOf(part.value.meta)] : [])),
      ...(listed?.ok ? pagesProvenance(listed.value.pages.map((p) => provenanceOf(p.meta))) : []),
    ],
    ...(listed?.ok && listed.value.pages.every((p) => !p.meta.stale) ? { listedFresh: polsOf(listed.value.now) } : {}),
  };
}

/** A list read page by page, as a footer needs it: its oldest page, and any page served stale. */
function pagesProvenance(pages: readonly Provenance[]): Provenance[] {
  const oldest = pages.reduce<Provenance | undefined>((a, b) => (a && a.fetchedAt <= b.fetchedAt ? a : b), undefined);
  return [...(oldest ? [oldest] : []), ...pages.filter((p) => p.stale && p !== oldest)];
}
