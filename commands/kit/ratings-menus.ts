import type { RatingParameters } from '../../src/api/domain.js';
import type { Action, Menu } from '../../src/reply/model.js';
import { pairValue } from './pairs.js';
import { TOKENS_FILTER, tokensSearch } from './ratings-tokens.js';

/**
 * The ratings filters and sort orders as pick lists, built from the service's own
 * `/v1/ratings/parameters` like the typed pairs are: each option is the same listing with that one
 * filter set (or cleared, "Any"), back on its first page. A filter whose values the service does not
 * list (the exchanges' tokens) has no menu: its values are looked up as they are typed.
 */
export function ratingsMenus(list: 'projects' | 'exchanges', params: RatingParameters, applied: readonly string[]): Menu[] {
  const run = (filters: readonly string[]): Action['run'] => ({
    command: 'ratings',
    args: { list, ...(filters.length ? { filters: filters.join(' ') } : {}) },
  });
  const menus: Menu[] = [];
  for (const filter of params.filters) {
    const values = filter.type === 'boolean' ? ['yes', 'no'] : filter.values;
    const prefix = `${filter.name}=`;
    const others = applied.filter((a) => !a.startsWith(prefix));
    if (filter.name === TOKENS_FILTER && !values?.length) {
      // Hundreds of tokens: looked up as the person types their ticker or name.
      const search = tokensSearch(others);
      if (search) menus.push({ label: 'Listed token', typed: `${prefix}<ticker or name>`, options: [], search });
      continue;
    }
    if (!values?.length) continue;
    const current = applied.find((a) => a.startsWith(prefix))?.slice(prefix.length);
    const options: Action[] = values.map((v) => ({ label: v, run: run([...others, `${prefix}${pairValue(v)}`]) }));
    if (current !== undefined) options.unshift({ label: 'Any', run: run(others) });
    const selected = values.find((v) => pairValue(v) === current);
    menus.push({ label: filterLabel(filter.name), options, typed: prefix, ...(selected ? { selected } : {}) });
  }
  if (params.sortBy.length) {
    const others = applied.filter((a) => !a.startsWith('sort=') && !a.startsWith('order='));
    const sort = applied.find((a) => a.startsWith('sort='))?.slice('sort='.length);
    const order = applied.find((a) => a.startsWith('order='))?.slice('order='.length);
    const options: Action[] = [];
    let selected: string | undefined;
    for (const s of params.sortBy) {
      for (const o of ['asc', 'desc'] as const) {
        const label = `${sortLabel(s)}, ${orderWords(s, o)}`;
        options.push({ label, run: run([...others, `sort=${s}`, `order=${o}`]) });
        if (s === sort && o === order) selected = label;
      }
    }
    menus.push({ label: 'Sort by', options, typed: `sort=${params.sortBy.join('|')} order=asc|desc`, ...(selected ? { selected } : {}) });
  }
  return menus;
}

/** `market_cap` is "Market cap"; `is_bug_bounty_present` is "Bug bounty". */
function filterLabel(name: string): string {
  const words = name
    .replace(/^is_/, '')
    .replace(/_present$/, '')
    .replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** `tradingVolumeChange` is "Trading volume change"; `pol` is "PoL". */
function sortLabel(sort: string): string {
  if (sort.toLowerCase() === 'pol') return 'PoL';
  const words = sort
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/_/g, ' ')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function orderWords(sort: string, order: 'asc' | 'desc'): string {
  if (sort === 'name') return order === 'asc' ? 'A to Z' : 'Z to A';
  if (sort === 'rank') return order === 'asc' ? 'first to last' : 'last to first';
  return order === 'asc' ? 'lowest first' : 'highest first';
}
