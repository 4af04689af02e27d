import { okValue, settle } from '../src/api/settle.js';
import * as fmt from '../src/reply/format.js';
import { footerOf } from '../src/reply/footer.js';
import type { Reply } from '../src/reply/model.js';
import { resolveTarget } from './kit/resolve-target.js';
import { defineCommand, str } from './kit/spec.js';
import { parseTarget } from './kit/target.js';

/** A review whole, within what one chat field holds. */
const MAX_REVIEW = 1000;
const MAX_SHOWN = 10;

export default defineCommand({
  name: 'reviews',
  order: 13,
  words: ['reviews'],
  summary: 'Expert reviews of a project, each in full (Proof of Voice)',
  examples: ['reviews aave'],
  options: [
    {
      type: 'entity',
      kind: 'project',
      name: 'name',
      description: 'Project (pick from the list, or type a name)',
      required: true,
      missing: 'Which project?',
    },
  ],
  async handler(ctx, args): Promise<Reply> {
    const resolved = await resolveTarget(
      ctx,
      parseTarget(str(args, 'name'), 'project'),
      (name) => ({ command: 'reviews', args: { name } }),
      'project',
    );
    if (!resolved.ok) return resolved.reply;
    const [fetched, record] = await Promise.all([
      ctx.source.voiceReviews(resolved.entity.slug),
      settle(ctx.source.record('project', resolved.entity.slug)),
    ]);
    // A pick names the project by slug; its record has the name people know.
    const entity = { ...resolved.entity, name: okValue(record)?.data.name ?? resolved.entity.name };
    const reviews = fetched.data;
    const footer = footerOf([fetched, ...(record.ok ? [record.value] : [])], ctx.now());
    if (reviews.length === 0)
      return { kind: 'text', title: `${entity.name}: expert reviews`, text: `There are no expert reviews of ${entity.name} yet.`, footer };
    const shown = reviews.slice(0, MAX_SHOWN);
    return {
      kind: 'text',
      title: `${entity.name}: expert reviews`,
      text: `${reviews.length} ${reviews.length === 1 ? 'review' : 'reviews'}${reviews.length > MAX_SHOWN ? `, the latest ${MAX_SHOWN} shown` : ''}.`,
      sections: shown.map((r) => ({
        title: `${fmt.oneLine(r.author, 60)}${r.publishedAt ? `, ${r.publishedAt.slice(0, 10)}` : ''}`,
        items: [fmt.oneLine(r.content, MAX_REVIEW)],
      })),
      footer,
    };
  },
});
