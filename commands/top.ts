import * as fmt from '../src/reply/format.js';
import { footerOf } from '../src/reply/footer.js';
import type { TableReply } from '../src/reply/model.js';
import { defineCommand, str } from './kit/spec.js';
import { targetRef } from './kit/target.js';

const TOP_N = 10;

export default defineCommand({
  name: 'top',
  order: 20,
  words: ['top'],
  summary: 'Top ratings, lowest Probability of Loss first',
  examples: ['top projects'],
  options: [
    {
      type: 'choice',
      name: 'list',
      description: 'Exchanges (default) or projects',
      choices: [{ value: 'exchanges' }, { value: 'projects' }],
      aliases: { exchange: 'exchanges', project: 'projects' },
      default: 'exchanges',
    },
  ],
  async handler(ctx, args) {
    const kind = str(args, 'list') === 'projects' ? 'project' : 'exchange';
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
      rows: items.map((r, i) => ({ rank: String(r.rank ?? i + 1), name: `${r.name}${r.ticker ? ` (${r.ticker})` : ''}`, pol: fmt.pol(r.pol), rating: r.rating })),
      footer: footerOf([fetched], ctx.now()),
      actions: items.map((r) => ({ label: r.name, run: { command: 'card', args: { name: targetRef(r.kind, r.slug) } } })),
    } satisfies TableReply;
  },
});
