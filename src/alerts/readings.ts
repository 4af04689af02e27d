import { type EntityKind, type EntityRef, isUnreadable } from '../api/domain.js';
import { settle } from '../api/settle.js';
import type { DataSource } from '../api/source.js';
import { provenanceOf, type Provenance } from '../reply/footer.js';
import type { Condition } from './condition.js';
import type { Reading } from './evaluate.js';

/** Which parts of an entity the conditions watching it need; nothing else is fetched. */
export interface Needs {
  pol: boolean;
  categories: boolean;
  flags: boolean;
}

export function needsOf(conditions: readonly Condition[]): Needs {
  const needs: Needs = { pol: false, categories: false, flags: false };
  for (const c of conditions) {
    if (c.kind === 'category_below') needs.categories = true;
    else if (c.kind === 'new_red_flag') needs.flags = true;
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
  }
  return null;
}

/** A reading, with where and when each of its parts came from (for the footer of what it opens or moves). */
export interface Read {
  reading: Reading;
  provenance: Provenance[];
}

/**
 * One reading of an entity, its parts fetched in one parallel round through the shared cached
 * source (identical requests coalesce). A part that fails, or comes back unreadable, is null:
 * a condition on it cannot tell, and no alert fires or clears on a value nobody could read.
 */
export async function readEntity(source: DataSource, entity: EntityRef, needs: Needs, atSec: number): Promise<Read> {
  const { kind, slug } = entity;
  const [pol, categories, flags] = await Promise.all([
    needs.pol && source.supports('polCurrent', kind) ? settle(source.polCurrent(kind, slug)) : undefined,
    needs.categories && source.supports('byCategory', kind) ? settle(source.byCategory(kind, slug)) : undefined,
    needs.flags && kind === 'project' && source.supports('redFlags', kind) ? settle(source.redFlags(slug)) : undefined,
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
    },
    provenance: [pol, categories, flags].flatMap((part) => (part?.ok ? [provenanceOf(part.value.meta)] : [])),
  };
}
