import type { EntityKind, EntityRef, RatingEntry } from '../src/api/domain.js';
import * as fmt from '../src/reply/format.js';
import type { Reply, TableReply } from '../src/reply/model.js';
import type { CommandContext } from './context.js';
import { footerOf } from './footer.js';
import { targetRef } from './parse.js';
import { settle } from './settle.js';

const TOP_N = 10;

function ratingRows(items: RatingEntry[]) {
  return items.map((r, i) => ({
    rank: String(r.rank ?? i + 1),
    name: `${r.name}${r.ticker ? ` (${r.ticker})` : ''}`,
    pol: fmt.pol(r.pol),
    rating: r.rating,
  }));
}

export async function topCommand(ctx: CommandContext, kind: EntityKind): Promise<Reply> {
  const fetched =
    kind === 'exchange'
      ? await ctx.source.topRatings()
      : await ctx.source.ratings('project', { sortBy: 'rank', sortDirection: 'ASC', pageSize: TOP_N }).then((p) => ({ data: p.data.items, meta: p.meta }));
  const items = [...fetched.data].sort((a, b) => a.pol - b.pol).slice(0, TOP_N);
  return {
    kind: 'table',
    title: `Top ${items.length} ${kind === 'exchange' ? 'exchanges' : 'projects'} by rating`,
    note: 'Ordered by Probability of Loss: lower is safer.',
    columns: [
      { key: 'rank', label: '#', align: 'right' },
      { key: 'name', label: 'Name' },
      { key: 'pol', label: 'PoL', align: 'right' },
      { key: 'rating', label: 'Rating' },
    ],
    rows: ratingRows(items),
    footer: footerOf([fetched], ctx.now()),
    actions: items.map((r) => ({ label: r.name, command: targetRef(r.kind, r.slug) })),
  } satisfies TableReply;
}

function entityTable(title: string, refs: EntityRef[], note: string | undefined): Omit<TableReply, 'footer'> {
  return {
    kind: 'table',
    title,
    ...(note ? { note } : {}),
    columns: [
      { key: 'name', label: 'Name' },
      { key: 'kind', label: 'Kind' },
      { key: 'slug', label: 'Slug' },
    ],
    rows: refs.map((r) => ({ name: `${r.name}${r.ticker ? ` (${r.ticker})` : ''}`, kind: r.kind, slug: r.slug })),
    actions: refs.map((r) => ({ label: r.name, description: r.kind, command: targetRef(r.kind, r.slug) })),
  };
}

export async function searchCommand(ctx: CommandContext, text: string): Promise<Reply> {
  const query = text.slice(0, 100);
  const [projects, exchanges] = await Promise.all([settle(ctx.source.search('project', query)), settle(ctx.source.search('exchange', query))]);
  if (!projects.ok && !exchanges.ok) throw projects.error;
  const refs = [...(projects.ok ? projects.value.data : []), ...(exchanges.ok ? exchanges.value.data : [])].slice(0, 25);
  const partial = !projects.ok || !exchanges.ok ? `Only ${projects.ok ? 'projects' : 'exchanges'} could be searched right now.` : undefined;
  if (refs.length === 0) {
    return { kind: 'text', title: `Search: “${query}”`, text: `Nothing matches “${query}”.${partial ? ` ${partial}` : ''}` };
  }
  return {
    ...entityTable(`Search: “${query}” (${refs.length} found)`, refs, partial),
    footer: footerOf([projects, exchanges].flatMap((s) => (s.ok ? [s.value] : [])), ctx.now()),
  };
}

export async function trendingCommand(ctx: CommandContext): Promise<Reply> {
  const [projects, exchanges] = await Promise.all([settle(ctx.source.trending('project')), settle(ctx.source.trending('exchange'))]);
  if (!projects.ok && !exchanges.ok) throw projects.error;
  const refs = [...(projects.ok ? projects.value.data : []), ...(exchanges.ok ? exchanges.value.data : [])];
  return {
    ...entityTable('Trending now', refs, !projects.ok || !exchanges.ok ? 'Only part of the trending list is available right now.' : undefined),
    footer: footerOf([projects, exchanges].flatMap((s) => (s.ok ? [s.value] : [])), ctx.now()),
  };
}
