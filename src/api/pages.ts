import type { Page } from './domain.js';
import type { Fetched } from './source.js';

/** The service's largest page. */
export const MAX_PAGE_SIZE = 50;

/**
 * Every page of a list, at most `maxPages` of them: the first says how many there are, the rest
 * are asked for together. Each page is its own request, so a cache in front serves the pages it
 * holds and asks for the others.
 */
export async function allPages<T>(
  ask: (page: number, pageSize: number) => Promise<Fetched<Page<T>>>,
  maxPages: number,
  pageSize = MAX_PAGE_SIZE,
): Promise<Fetched<Page<T>>[]> {
  const first = await ask(1, pageSize);
  const pages = Math.min(first.data.totalPages ?? 1, maxPages);
  const rest = await Promise.all(Array.from({ length: Math.max(0, pages - 1) }, (_, i) => ask(i + 2, pageSize)));
  return [first, ...rest];
}
