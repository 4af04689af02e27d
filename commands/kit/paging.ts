import type { Page } from '../../src/api/domain.js';
import { allPages } from '../../src/api/pages.js';
import type { Fetched } from '../../src/api/source.js';
import { fixedDigits } from '../../src/reply/digits.js';
import * as fmt from '../../src/reply/format.js';
import type { Action, CommandRef } from '../../src/reply/model.js';

/**
 * Paging a filtered list (ratings, listed assets): its Previous, Next and Export CSV buttons, the
 * whole list read for an export, and what a page past the last says.
 */

/** How many of the service's largest pages an export reads at most (2,500 rows). */
const EXPORT_MAX_PAGES = 50;

/** `list(pairs)` is the same list with `pairs` added to its filters; page 1 is the list without one. */
export function pageActions(page: number, totalPages: number | null, exporting: boolean, list: (pairs: string[]) => CommandRef): Action[] {
  const at = (p: number) => list(p > 1 ? [`page=${p}`] : []);
  return [
    ...(page > 1 ? [{ label: 'Previous page', run: at(page - 1) }] : []),
    ...(totalPages !== null && page < totalPages ? [{ label: 'Next page', run: at(page + 1) }] : []),
    ...(exporting ? [] : [{ label: 'Export CSV', run: list(['export=csv']) }]),
  ];
}

/** Every row of a list for an export: the first page says how many there are, the rest are asked for together. */
export async function allRows<T>(ask: (page: number, pageSize: number) => Promise<Fetched<Page<T>>>): Promise<T[]> {
  return (await allPages(ask, EXPORT_MAX_PAGES)).flatMap((p) => p.data.items);
}

/** "There are 5 pages of exchanges for sort=pol; page 9 is past the last." */
export function pastTheLast(what: string, page: number, totalPages: number, filters: string): string {
  return `There ${totalPages === 1 ? 'is 1 page' : `are ${fmt.count(totalPages)} pages`} of ${what}${filters ? ` for ${filters}` : ''}; page ${page} is past the last.`;
}

/** The last page as a command takes it (`page=3`), whatever count of pages the service sent. */
export function lastPage(totalPages: number): string {
  return fixedDigits(Math.max(1, Math.ceil(totalPages)), 0);
}
