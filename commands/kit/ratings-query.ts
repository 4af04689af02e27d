import type { RatingParameters, RatingsQuery, RatingToken } from '../../src/api/domain.js';
import { pairKey, pairValue, splitPairs } from './pairs.js';
import { TOKENS_FILTER, tokenValues } from './ratings-tokens.js';

/**
 * Ratings filters typed as `name=value` pairs (`categories=DeFi chains=Ethereum,Solana sort=pol
 * order=asc page=2`), checked against the service's own `/v1/ratings/parameters`: which filters
 * exist, which values each takes and which sort orders there are come from the service at run time,
 * so a filter the service adds works without a change here, and one it drops is refused.
 */

export interface ReadQuery {
  query: RatingsQuery;
  /** The filters as given, for the reply's note and the page buttons: `categories=DeFi`. */
  applied: string[];
  page: number;
  /** `export=csv`: the whole filtered list as a CSV file too. */
  exportCsv: boolean;
}

export type QueryResult = { ok: true; read: ReadQuery } | { ok: false; message: string };

const MAX_LISTED = 20;

function listOf(values: readonly string[]): string {
  return values.length > MAX_LISTED
    ? `${values.slice(0, MAX_LISTED).join(', ')} and ${values.length - MAX_LISTED} more`
    : values.join(', ');
}

/** Every name a pair may have: the service's filters, then the words every listing takes. */
const namesOf = (params: RatingParameters) => [...params.filters.map((f) => f.name), 'sort', 'order', 'page', 'export'];

/** The values a name takes, where there is a fixed set (page takes any number). */
function valuesOf(params: RatingParameters, name: string): readonly string[] {
  if (name === 'sort') return params.sortBy;
  if (name === 'order') return ['asc', 'desc'];
  if (name === 'export') return ['csv'];
  const filter = params.filters.find((f) => pairKey(f.name) === name);
  return filter?.type === 'boolean' ? ['yes', 'no'] : (filter?.values ?? []);
}

/**
 * Completions for the last pair of a ratings query as it is being typed: names first
 * (`categories=`), then that name's values, keeping the pairs before it so that each pick
 * extends the text. Best matches first.
 */
export function completeRatingsQuery(typed: string, params: RatingParameters, tokens: readonly RatingToken[] = []): string[] {
  const lastSpace = typed.lastIndexOf(' ');
  const head = typed.slice(0, lastSpace + 1);
  const tail = typed.slice(lastSpace + 1);
  const eq = tail.indexOf('=');
  if (eq < 0)
    return namesOf(params)
      .filter((n) => pairKey(n).startsWith(pairKey(tail)))
      .map((n) => `${head}${n}=`);
  const typedValues = tail.slice(eq + 1).split(',');
  const last = typedValues.pop() ?? '';
  const partial = pairKey(last);
  const name = pairKey(tail.slice(0, eq));
  // Tokens are picked by ticker or name from the service's token list, and go in by ticker.
  const matching =
    name === pairKey(TOKENS_FILTER)
      ? tokenValues(last, tokens)
      : (() => {
          const values = valuesOf(params, name);
          return [
            ...values.filter((v) => pairKey(v).startsWith(partial)),
            ...values.filter((v) => !pairKey(v).startsWith(partial) && pairKey(v).includes(partial)),
          ];
        })();
  return matching.map((v) => `${head}${tail.slice(0, eq)}=${[...typedValues, pairValue(v)].join(',')}`);
}

export function readRatingsQuery(text: string, params: RatingParameters): QueryResult {
  const { pairs, stray } = splitPairs(text);
  const names = namesOf(params);
  const example = `for example: ${params.filters[0] ? `${params.filters[0].name}=${params.filters[0].values?.[0] ?? 'yes'} ` : ''}sort=${params.sortBy[0] ?? 'rank'} page=2`;
  if (stray)
    return {
      ok: false,
      message: `'${stray.slice(0, 40)}' is not a filter: give name=value pairs, ${example}. Filters: ${names.join(', ')}.`,
    };
  const filters: NonNullable<RatingsQuery['filters']> = {};
  const applied: string[] = [];
  const query: RatingsQuery = {};
  let page = 1;
  let exportCsv = false;
  for (const [rawName, rawValue] of pairs) {
    const name = pairKey(rawName);
    if (name === 'export') {
      if (pairKey(rawValue) !== 'csv') return { ok: false, message: `Unknown export '${rawValue.slice(0, 10)}': use export=csv.` };
      exportCsv = true;
      continue;
    }
    if (name === 'page') {
      if (!/^\d{1,4}$/.test(rawValue) || Number(rawValue) < 1)
        return { ok: false, message: `'${rawValue.slice(0, 10)}' is not a page number.` };
      page = Number(rawValue);
      continue;
    }
    if (name === 'sort') {
      const sort = params.sortBy.find((s) => pairKey(s) === pairKey(rawValue));
      if (!sort) return { ok: false, message: `Unknown sort '${rawValue.slice(0, 30)}': use one of ${params.sortBy.join(', ')}.` };
      query.sortBy = sort;
      applied.push(`sort=${sort}`);
      continue;
    }
    if (name === 'order') {
      const order = pairKey(rawValue) === 'asc' ? 'ASC' : pairKey(rawValue) === 'desc' ? 'DESC' : undefined;
      if (!order) return { ok: false, message: `Unknown order '${rawValue.slice(0, 10)}': use asc or desc.` };
      query.sortDirection = order;
      applied.push(`order=${order.toLowerCase()}`);
      continue;
    }
    // A singular (`category`) stands for the service's plural filter name (`categories`).
    const filter = params.filters.find(
      (f) => pairKey(f.name) === name || pairKey(f.name) === `${name}s` || pairKey(f.name) === name.replace(/y$/, 'ies'),
    );
    if (!filter) return { ok: false, message: `Unknown filter '${rawName.slice(0, 30)}': use one of ${names.join(', ')}.` };
    if (filter.type === 'boolean') {
      const yes = ['yes', 'true', '1'].includes(pairKey(rawValue));
      const no = ['no', 'false', '0'].includes(pairKey(rawValue));
      if (!yes && !no) return { ok: false, message: `${filter.name} takes yes or no, not '${rawValue.slice(0, 20)}'.` };
      filters[filter.name] = yes;
      applied.push(`${filter.name}=${yes ? 'yes' : 'no'}`);
      continue;
    }
    const wanted = rawValue
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);
    const picked: string[] = [];
    for (const w of wanted) {
      // Without a list of values from the service, a value is passed on as given.
      const found = filter.values ? filter.values.find((v) => pairKey(v) === pairKey(w)) : w;
      if (!found) return { ok: false, message: `Unknown ${filter.name} '${w.slice(0, 30)}': use one of ${listOf(filter.values ?? [])}.` };
      picked.push(found);
    }
    if (picked.length === 0) return { ok: false, message: `${filter.name} needs a value, ${example}.` };
    filters[filter.name] = picked;
    applied.push(`${filter.name}=${picked.map(pairValue).join(',')}`);
  }
  if (Object.keys(filters).length) query.filters = filters;
  return { ok: true, read: { query, applied, page, exportCsv } };
}
