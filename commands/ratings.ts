import { footerOf } from '../src/reply/footer.js';
import type { Reply, ReplyFile, TableReply } from '../src/reply/model.js';
import { type EntityKind, type RatingEntry, type RatingsQuery, readable } from '../src/api/domain.js';
import { toCsv } from '../src/reply/csv.js';
import * as fmt from '../src/reply/format.js';
import { pairValue } from './kit/pairs.js';
import { completeRatingsQuery, readRatingsQuery, type ReadQuery } from './kit/ratings-query.js';
import { pickTokens, TOKENS_FILTER } from './kit/ratings-tokens.js';
import { textChoices } from './kit/choices.js';
import type { CommandContext, CompletionContext } from './kit/context.js';
import { defineCommand, str, type Args } from './kit/spec.js';
import { skippedRows } from './kit/entity-table.js';
import { RATING_COLUMNS, ratingPicks, ratingRows } from './kit/ratings-table.js';
import { ratingsMenus } from './kit/ratings-menus.js';
import { allRows, lastPage, pageActions, pastTheLast } from './kit/paging.js';

/** Rows per page: a table a chat window shows whole. */
const PAGE_SIZE = 10;
const LISTS = ['projects', 'exchanges'] as const;

const kindOf = (args: Args): EntityKind => (str(args, 'list') === 'exchanges' ? 'exchange' : 'project');

/**
 * Completions of the filters being typed (`categories=De` -> `categories=DeFi`), from the filters
 * the service lists as cached: suggestions cannot wait on the upstream, so when they are not
 * cached yet they are fetched in the background for the next keystroke.
 */
function completeFilters(ctx: CompletionContext, kind: EntityKind, typed: string): string[] {
  const { source } = ctx;
  const cached = source.cache.peek('ratingParameters', kind);
  if (!cached && source.supports('ratingParameters', kind)) void source.ratingParameters(kind).catch(() => undefined);
  // The exchanges' token list, for picking listed tokens; fetched in the background like the parameters.
  const tokens = kind === 'exchange' ? source.cache.peek('ratingTokens') : undefined;
  if (kind === 'exchange' && !tokens && source.supports('ratingTokens', kind)) void source.ratingTokens().catch(() => undefined);
  return cached ? completeRatingsQuery(typed, cached.data, tokens?.data ?? []) : [];
}

export default defineCommand({
  name: 'ratings',
  order: 21,
  words: ['ratings'],
  summary: 'Ratings with the filters and sort orders the service offers, a page at a time',
  examples: [
    'ratings projects',
    'ratings projects categories=DeFi sort=pol order=asc',
    'ratings exchanges is_proof_of_reserves_present=yes',
    'ratings exchanges listed_tokens=BTC,ETH sort=pol order=asc',
  ],
  options: [
    {
      type: 'choice',
      name: 'list',
      description: 'Projects (default) or exchanges',
      choices: LISTS.map((value) => ({ value })),
      aliases: { project: 'projects', exchange: 'exchanges' },
    },
    {
      type: 'text',
      name: 'filters',
      description: 'name=value pairs: categories=DeFi chains=Ethereum sort=pol order=asc page=2',
      maxLength: 300,
      complete: (ctx, typed, args) => textChoices(completeFilters(ctx, kindOf(args), typed)),
    },
  ],
  // `ratings projects categories=DeFi`: the list first, then the pairs, which may hold any word.
  text: {
    usage: '[projects|exchanges] [name=value ...]',
    parse(rest) {
      const [first = '', ...more] = rest.split(' ').filter(Boolean);
      const list = ({ projects: 'projects', project: 'projects', exchanges: 'exchanges', exchange: 'exchanges' } as Record<string, string>)[
        first.toLowerCase()
      ];
      const filters = (list ? more : [first, ...more]).join(' ').trim();
      return { ok: true, args: { ...(list ? { list } : {}), ...(filters ? { filters } : {}) } };
    },
    format: (args) =>
      [typeof args.list === 'string' ? args.list : '', typeof args.filters === 'string' ? args.filters : ''].filter(Boolean).join(' '),
  },
  async handler(ctx, args): Promise<Reply> {
    const kind = kindOf(args);
    const list = kind === 'exchange' ? 'exchanges' : 'projects';
    if (!ctx.source.supports('ratings', kind)) {
      return {
        kind: 'text',
        title: `Ratings of ${list}`,
        text: `Ratings with filters need the REST service; the tool server has no tool for them.`,
      };
    }
    const params = await ctx.source.ratingParameters(kind);
    const read = readRatingsQuery(str(args, 'filters'), params.data);
    if (!read.ok)
      return { kind: 'error', message: read.message, hint: `For example: ratings ${list} sort=${params.data.sortBy[0] ?? 'rank'} page=2` };
    const named = await withTokenIds(ctx, read.read);
    if (!named.ok) return { kind: 'error', message: named.message, hint: `For example: ratings exchanges ${TOKENS_FILTER}=BTC,ETH` };
    const { query, applied, page, exportCsv } = named.read;
    const [fetched, file] = await Promise.all([
      ctx.source.ratings(kind, { ...query, page, pageSize: PAGE_SIZE }),
      exportCsv ? exportFile(ctx, kind, query, applied) : undefined,
    ]);
    const { items, total, totalPages } = fetched.data;
    const footer = footerOf([params, fetched], ctx.now());
    const filtersText = applied.length ? applied.join(' ') : 'no filters';
    if (items.length === 0) {
      if (page > 1 && totalPages !== null && page > totalPages) {
        return {
          kind: 'error',
          message: pastTheLast(list, page, totalPages, filtersText),
          hint: `For example: ratings ${list} ${[...applied, `page=${lastPage(totalPages)}`].join(' ')}`,
        };
      }
      return { kind: 'text', title: `Ratings of ${list}`, text: `No ${list} match ${filtersText}.`, footer };
    }
    const nav = pageActions(page, totalPages, exportCsv, (pairs) => ({
      command: 'ratings',
      args: { list, filters: [...applied, ...pairs].join(' ') },
    }));
    const pages = totalPages !== null ? ` of ${fmt.count(totalPages)}` : '';
    const count = total !== null ? ` · ${fmt.count(total)} ${list}` : '';
    return {
      kind: 'table',
      title: `Ratings of ${list}`,
      note: [
        `${filtersText === 'no filters' ? 'All' : filtersText} · page ${page}${pages}${count}. PoL: lower is safer.`,
        skippedRows([fetched]),
      ]
        .filter(Boolean)
        .join(' '),
      columns: RATING_COLUMNS,
      rows: ratingRows(items, () => '—'),
      ...(file ? { file } : {}),
      footer,
      actions: [...nav, ...ratingPicks(items)],
      menus: ratingsMenus(list, params.data, applied),
    } satisfies TableReply;
  },
});

/**
 * Listed tokens given by ticker or name become the token ids the service filters by; the filter
 * as shown (and as the page buttons carry it) keeps the tickers, which people read.
 */
async function withTokenIds(ctx: CommandContext, read: ReadQuery): Promise<{ ok: true; read: ReadQuery } | { ok: false; message: string }> {
  const wanted = read.query.filters?.[TOKENS_FILTER];
  if (!Array.isArray(wanted)) return { ok: true, read };
  const tokens = await ctx.source.ratingTokens();
  const picked = pickTokens(wanted.map(String), tokens.data);
  if (!picked.ok) return picked;
  const tickers = picked.tokens.map((t) => pairValue(t.ticker)).join(',');
  return {
    ok: true,
    read: {
      ...read,
      query: { ...read.query, filters: { ...read.query.filters, [TOKENS_FILTER]: picked.tokens.map((t) => t.id) } },
      applied: read.applied.map((a) => (a.startsWith(`${TOKENS_FILTER}=`) ? `${TOKENS_FILTER}=${tickers}` : a)),
    },
  };
}

/** The whole filtered list as CSV. PoL goes in as the probability the service gives (0..1), not as display text. */
async function exportFile(ctx: CommandContext, kind: EntityKind, query: RatingsQuery, applied: string[]): Promise<ReplyFile> {
  const items: RatingEntry[] = await allRows((page, pageSize) => ctx.source.ratings(kind, { ...query, page, pageSize }));
  const amount = kind === 'project' ? 'market_cap_usd' : 'trading_volume_usd';
  const rows = items.map((r) => [
    readable(r.rank ?? undefined) ?? null,
    r.slug,
    r.name,
    r.ticker ?? null,
    readable(r.pol) ?? null,
    readable(r.rating) ?? null,
    readable((kind === 'project' ? r.marketCap : r.tradingVolume) ?? undefined) ?? null,
  ]);
  const list = kind === 'project' ? 'projects' : 'exchanges';
  return {
    filename: `ratings-${list}.csv`,
    contentType: 'text/csv',
    bytes: toCsv(['rank', 'slug', 'name', 'ticker', 'pol', 'rating', amount], rows),
    title: `Ratings of ${list}${applied.length ? `, ${applied.join(' ')}` : ''}: ${items.length} rows`,
  };
}
