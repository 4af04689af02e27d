import type { RatingEntry } from '../../src/api/domain.js';
import * as fmt from '../../src/reply/format.js';
import type { Action, Column } from '../../src/reply/model.js';
import { targetRef } from './target.js';

/** Ratings as a table: rank, name, PoL (lower is safer) and rating, each row a pick that opens its card. */
export const RATING_COLUMNS: Column[] = [
  { key: 'rank', label: '#', align: 'right' },
  { key: 'name', label: 'Name' },
  { key: 'pol', label: 'PoL', align: 'right' },
  { key: 'rating', label: 'Rating' },
];

/** `noRank` is what a row without a rank shows (its place in the list, or a dash). */
export function ratingRows(items: readonly RatingEntry[], noRank: (index: number) => string): Record<string, string>[] {
  return items.map((r, i) => ({
    rank: r.rank === null ? noRank(i) : fmt.count(r.rank),
    name: `${r.name}${r.ticker ? ` (${r.ticker})` : ''}`,
    pol: fmt.pol(r.pol),
    rating: fmt.rating(r.rating),
  }));
}

export function ratingPicks(items: readonly RatingEntry[]): Action[] {
  return items.map((r) => ({ label: r.name, run: { command: 'card', args: { name: targetRef(r.kind, r.slug) } } }));
}
