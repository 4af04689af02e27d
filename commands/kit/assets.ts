import { type AssetCategory, type EntityRef, type ListedAsset, type ListedAssetsQuery, readable } from '../../src/api/domain.js';
import { okValue, settle } from '../../src/api/settle.js';
import { toCsv } from '../../src/reply/csv.js';
import * as fmt from '../../src/reply/format.js';
import { footerOf } from '../../src/reply/footer.js';
import { inline, ref } from '../../src/reply/inline.js';
import type { Action, Menu, Reply, ReplyFile, TableReply } from '../../src/reply/model.js';
import type { CommandContext } from './context.js';
import { skippedRows } from './entity-table.js';
import { allRows, pageActions, pastTheLast } from './paging.js';
import { pairKey, pairValue, splitPairs } from './pairs.js';
import { resolveTarget } from './resolve-target.js';
import { exchangeSectionActions, exchangeSectionsOf } from './sections.js';
import { type Args, type HandlerContext, str } from './spec.js';
import { parseTarget, targetRef } from './target.js';

/**
 * The assets an exchange lists, a page at a time: each with its PoL (lower is safer), filtered by
 * a search and by the categories the exchange's own `/listed_assets/categories` names, sorted by
 * name, market cap or PoL, with the whole filtered list as CSV on request.
 */

const PAGE_SIZE = 10;
export const ASSET_SORTS = ['name', 'marketCap', 'polScore'] as const;
type Sort = (typeof ASSET_SORTS)[number];
const SORT_WORDS: Record<string, Sort> = { name: 'name', marketcap: 'marketCap', cap: 'marketCap', polscore: 'polScore', pol: 'polScore' };

interface AssetsQuery {
  query: ListedAssetsQuery;
  /** The filters as given back: `search=sol category=defi sort=polScore`. */
  applied: string[];
  page: number;
  exportCsv: boolean;
}

/** `search=sol category=DeFi sort=marketCap order=desc page=2 export=csv`, checked against the exchange's categories. */
export function readAssetsQuery(
  text: string,
  categories: readonly AssetCategory[],
): { ok: true; read: AssetsQuery } | { ok: false; message: string } {
  const { pairs, stray } = splitPairs(text);
  const names = 'search, category, sort, order, page, export';
  if (stray)
    return {
      ok: false,
      message: `'${stray.slice(0, 40)}' is not a filter: give name=value pairs (${names}), for example search=sol sort=polScore.`,
    };
  const query: ListedAssetsQuery = {};
  const applied: string[] = [];
  let page = 1;
  let exportCsv = false;
  for (const [rawName, rawValue] of pairs) {
    const name = pairKey(rawName);
    if (name === 'search') {
      const text = rawValue.trim().slice(0, 60);
      if (!text) return { ok: false, message: 'search needs some text, for example search=sol.' };
      query.search = text;
      applied.push(`search=${pairValue(text)}`);
    } else if (name === 'category' || name === 'categories') {
      const picked = [];
      for (const wanted of rawValue
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean)) {
        const found = categories.find((c) => pairKey(c.name) === pairKey(wanted) || pairKey(c.id) === pairKey(wanted));
        if (!found)
          return {
            ok: false,
            message: `This exchange lists no '${wanted.slice(0, 30)}' assets: its categories are ${categories.map((c) => c.name).join(', ') || 'none'}.`,
          };
        picked.push(found);
      }
      if (!picked.length) return { ok: false, message: 'category needs a value, for example category=DeFi.' };
      query.categories = picked.map((c) => c.id);
      applied.push(`category=${picked.map((c) => pairValue(c.name)).join(',')}`);
    } else if (name === 'sort') {
      const sort = SORT_WORDS[pairKey(rawValue)];
      if (!sort) return { ok: false, message: `Unknown sort '${rawValue.slice(0, 20)}': use one of ${ASSET_SORTS.join(', ')}.` };
      query.sortBy = sort;
      applied.push(`sort=${sort}`);
    } else if (name === 'order') {
      const order = pairKey(rawValue) === 'asc' ? 'ASC' : pairKey(rawValue) === 'desc' ? 'DESC' : undefined;
      if (!order) return { ok: false, message: `Unknown order '${rawValue.slice(0, 10)}': use asc or desc.` };
      query.sortDirection = order;
      applied.push(`order=${order.toLowerCase()}`);
    } else if (name === 'page') {
      if (!/^\d{1,4}$/.test(rawValue) || Number(rawValue) < 1)
        return { ok: false, message: `'${rawValue.slice(0, 10)}' is not a page number.` };
      page = Number(rawValue);
    } else if (name === 'export') {
      if (pairKey(rawValue) !== 'csv') return { ok: false, message: `Unknown export '${rawValue.slice(0, 10)}': use export=csv.` };
      exportCsv = true;
    } else return { ok: false, message: `Unknown filter '${rawName.slice(0, 30)}': use ${names}.` };
  }
  return { ok: true, read: { query, applied, page, exportCsv } };
}

/** The listed assets of whatever exchange `name` resolves to. */
export async function showAssets(ctx: HandlerContext, args: Args): Promise<Reply> {
  const target = parseTarget(str(args, 'name'), 'exchange');
  if (target.explicit && target.explicit.kind !== 'exchange')
    return {
      kind: 'error',
      message: 'Listed assets are published for exchanges only.',
      hint: inline`For a project, see ${ref('project', { name: str(args, 'name') })}.`,
    };
  const resolved = await resolveTarget(
    ctx,
    target,
    (name) => ({ command: 'assets', args: { name, ...(str(args, 'filters') ? { filters: str(args, 'filters') } : {}) } }),
    'exchange',
  );
  if (!resolved.ok) return resolved.reply;
  return assetsTable(ctx, resolved.entity, str(args, 'filters'));
}

async function assetsTable(ctx: CommandContext, entity: EntityRef, filters: string): Promise<Reply> {
  const { source } = ctx;
  const title = `Assets listed on ${entity.name}`;
  if (!source.supports('listedAssets', 'exchange'))
    return { kind: 'text', title, text: 'Listed assets need the REST service; the tool server has no tool for them.' };
  const [categories, record] = await Promise.all([
    source.listedAssetCategories(entity.slug),
    settle(source.record('exchange', entity.slug)),
  ]);
  const named = { ...entity, name: okValue(record)?.data.name ?? entity.name };
  const read = readAssetsQuery(filters, categories.data);
  if (!read.ok)
    return {
      kind: 'error',
      message: read.message,
      hint: inline`For example: ${ref('assets', { name: targetRef('exchange', entity.slug), filters: 'sort=polScore order=asc' })}`,
    };
  const { query, applied, page, exportCsv } = read.read;
  const [fetched, file] = await Promise.all([
    source.listedAssets(entity.slug, { ...query, page, pageSize: PAGE_SIZE }),
    exportCsv ? exportFile(ctx, named, query, applied) : undefined,
  ]);
  const { items, total, totalPages } = fetched.data;
  const footer = footerOf([categories, fetched, ...(record.ok ? [record.value] : [])], ctx.now());
  const filtersText = applied.length ? applied.join(' ') : '';
  const heading = `Assets listed on ${named.name}`;
  if (items.length === 0) {
    if (page > 1 && totalPages !== null && page > totalPages) {
      return { kind: 'error', message: pastTheLast('assets', page, totalPages, filtersText) };
    }
    const none = filtersText ? `No asset listed on ${named.name} matches ${filtersText}.` : `${named.name} lists no assets.`;
    return { kind: 'text', title: heading, text: none, footer };
  }
  const name = targetRef('exchange', entity.slug);
  const nav = pageActions(page, totalPages, exportCsv, (pairs) => ({
    command: 'assets',
    args: { name, ...([...applied, ...pairs].length ? { filters: [...applied, ...pairs].join(' ') } : {}) },
  }));
  const pages = totalPages !== null ? ` of ${fmt.count(totalPages)}` : '';
  const count = total !== null ? ` · ${fmt.count(total)} assets` : '';
  const rankOffset = (page - 1) * PAGE_SIZE;
  return {
    kind: 'table',
    title: heading,
    note: [`${filtersText || 'All'} · page ${page}${pages}${count}. PoL: lower is safer.`, skippedRows([fetched])]
      .filter(Boolean)
      .join(' '),
    columns: [
      { key: 'n', label: '#', align: 'right' },
      { key: 'name', label: 'Asset' },
      { key: 'category', label: 'Category' },
      { key: 'cap', label: 'Market cap', align: 'right' },
      { key: 'pol', label: 'PoL', align: 'right' },
    ],
    rows: items.map((a, i) => ({
      n: String(rankOffset + i + 1),
      name: `${a.name} (${a.ticker})`,
      category: a.categories.join(', ') || '—',
      cap: fmt.usd(a.marketCap),
      pol: fmt.pol(a.polScore),
    })),
    ...(file ? { file } : {}),
    footer,
    actions: [
      ...nav,
      ...exchangeSectionActions(
        entity,
        'assets',
        exchangeSectionsOf((m, k) => source.supports(m, k)),
      ),
    ],
    menus: assetMenus(name, categories.data, applied),
  } satisfies TableReply;
}

/** The exchange's categories and the sort orders as pick lists; each pick starts again at page 1. */
function assetMenus(name: string, categories: readonly AssetCategory[], applied: readonly string[]): Menu[] {
  const run = (filters: readonly string[]): Action['run'] => ({
    command: 'assets',
    args: { name, ...(filters.length ? { filters: filters.join(' ') } : {}) },
  });
  const others = applied.filter((a) => !a.startsWith('category='));
  const current = applied.find((a) => a.startsWith('category='))?.slice('category='.length);
  const menus: Menu[] = [];
  if (categories.length) {
    const label = (c: AssetCategory) => (c.count !== null ? `${c.name} (${fmt.count(c.count)})` : c.name);
    const selected = categories.find((c) => pairValue(c.name) === current);
    menus.push({
      label: 'Category',
      typed: 'category=',
      options: [
        ...(current ? [{ label: 'Any', run: run(others) }] : []),
        ...categories.map((c) => ({ label: label(c), run: run([...others, `category=${pairValue(c.name)}`]) })),
      ],
      ...(selected ? { selected: label(selected) } : {}),
    });
  }
  const unsorted = applied.filter((a) => !a.startsWith('sort=') && !a.startsWith('order='));
  const sort = applied.find((a) => a.startsWith('sort='))?.slice(5);
  const order = applied.find((a) => a.startsWith('order='))?.slice(6);
  const labels: Record<Sort, [string, string]> = {
    name: ['Name, A to Z', 'Name, Z to A'],
    marketCap: ['Market cap, lowest first', 'Market cap, highest first'],
    polScore: ['PoL, lowest first', 'PoL, highest first'],
  };
  const options: Action[] = [];
  let selected: string | undefined;
  for (const s of ASSET_SORTS) {
    (['asc', 'desc'] as const).forEach((o, i) => {
      options.push({ label: labels[s][i]!, run: run([...unsorted, `sort=${s}`, `order=${o}`]) });
      if (s === sort && o === order) selected = labels[s][i];
    });
  }
  menus.push({ label: 'Sort by', typed: `sort=${ASSET_SORTS.join('|')} order=asc|desc`, options, ...(selected ? { selected } : {}) });
  return menus;
}

/** The whole filtered list as CSV; PoL as the probability the service gives (0..1), not display text. */
async function exportFile(
  ctx: CommandContext,
  entity: EntityRef,
  query: ListedAssetsQuery,
  applied: readonly string[],
): Promise<ReplyFile> {
  const items: ListedAsset[] = await allRows((page, pageSize) => ctx.source.listedAssets(entity.slug, { ...query, page, pageSize }));
  const rows = items.map((a) => [
    a.name,
    a.ticker,
    a.categories.join('; '),
    readable(a.marketCap ?? undefined) ?? null,
    readable(a.polScore ?? undefined) ?? null,
  ]);
  return {
    filename: `assets-${entity.slug}.csv`,
    contentType: 'text/csv',
    bytes: toCsv(['name', 'ticker', 'categories', 'market_cap_usd', 'pol'], rows),
    title: `Assets listed on ${entity.name}${applied.length ? `, ${applied.join(' ')}` : ''}: ${items.length} rows`,
  };
}
