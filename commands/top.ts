import { type RatingEntry, readable } from '../src/api/domain.js';
import { footerOf } from '../src/reply/footer.js';
import type { TableReply } from '../src/reply/model.js';
import { defineCommand, str } from './kit/spec.js';
import { skippedRows } from './kit/entity-table.js';
import { RATING_COLUMNS, ratingPicks, ratingRows } from './kit/ratings-table.js';

const TOP_N = 10;

export default defineCommand({
  name: 'top',
  order: 20,
  words: ['top'],
  summary: 'Top ratings, lowest Probability of Loss first',
  examples: ['top projects', 'top exchanges'],
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
        : await ctx.source
            .ratings('project', { sortBy: 'rank', sortDirection: 'ASC', pageSize: TOP_N })
            .then((p) => ({ data: p.data.items, meta: p.meta }));
    // A row whose PoL could not be read is listed after the readable ones, marked, never ranked by a guess.
    const polOf = (r: RatingEntry) => readable(r.pol) ?? Infinity;
    const items = [...fetched.data].sort((a, b) => polOf(a) - polOf(b)).slice(0, TOP_N);
    return {
      kind: 'table',
      title: `Top ${items.length} ${kind === 'exchange' ? 'exchanges' : 'projects'} by rating`,
      note: ['Ordered by Probability of Loss: lower is safer.', skippedRows([fetched])].filter(Boolean).join(' '),
      columns: RATING_COLUMNS,
      rows: ratingRows(items, (i) => String(i + 1)),
      footer: footerOf([fetched], ctx.now()),
      actions: ratingPicks(items),
    } satisfies TableReply;
  },
});
