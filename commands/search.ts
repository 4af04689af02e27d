import { settle } from '../src/api/settle.js';
import { footerOf } from '../src/reply/footer.js';
import { entityTable, skippedRows } from './kit/entity-table.js';
import { defineCommand, str } from './kit/spec.js';

export default defineCommand({
  name: 'search',
  order: 21,
  words: ['search'],
  summary: 'Find projects and exchanges',
  examples: ['search swap'],
  options: [
    {
      type: 'text',
      name: 'text',
      description: 'Part of a name, ticker or slug',
      required: true,
      maxLength: 100,
      missing: 'What should I search for?',
    },
  ],
  async handler(ctx, args) {
    const query = str(args, 'text').slice(0, 100);
    const [projects, exchanges] = await Promise.all([
      settle(ctx.source.search('project', query)),
      settle(ctx.source.search('exchange', query)),
    ]);
    if (!projects.ok && !exchanges.ok) throw projects.error;
    const refs = [...(projects.ok ? projects.value.data : []), ...(exchanges.ok ? exchanges.value.data : [])].slice(0, 25);
    const partial =
      [
        !projects.ok || !exchanges.ok ? `Only ${projects.ok ? 'projects' : 'exchanges'} could be searched right now.` : undefined,
        skippedRows([projects, exchanges].flatMap((s) => (s.ok ? [s.value] : []))),
      ]
        .filter(Boolean)
        .join(' ') || undefined;
    if (refs.length === 0)
      return { kind: 'text', title: `Search: “${query}”`, text: `Nothing matches “${query}”.${partial ? ` ${partial}` : ''}` };
    return {
      ...entityTable(`Search: “${query}” (${refs.length} found)`, refs, partial),
      footer: footerOf(
        [projects, exchanges].flatMap((s) => (s.ok ? [s.value] : [])),
        ctx.now(),
      ),
    };
  },
});
