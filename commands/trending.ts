import { settle } from '../src/api/settle.js';
import { footerOf } from '../src/reply/footer.js';
import { entityTable, skippedRows } from './kit/entity-table.js';
import { defineCommand } from './kit/spec.js';

export default defineCommand({
  name: 'trending',
  order: 22,
  words: ['trending'],
  summary: 'What people are looking up',
  examples: ['trending'],
  options: [],
  async handler(ctx) {
    const [projects, exchanges] = await Promise.all([settle(ctx.source.trending('project')), settle(ctx.source.trending('exchange'))]);
    if (!projects.ok && !exchanges.ok) throw projects.error;
    const refs = [...(projects.ok ? projects.value.data : []), ...(exchanges.ok ? exchanges.value.data : [])];
    return {
      ...entityTable(
        'Trending now',
        refs,
        [
          !projects.ok || !exchanges.ok ? 'Only part of the trending list is available right now.' : undefined,
          skippedRows([projects, exchanges].flatMap((s) => (s.ok ? [s.value] : []))),
        ]
          .filter(Boolean)
          .join(' ') || undefined,
      ),
      footer: footerOf(
        [projects, exchanges].flatMap((s) => (s.ok ? [s.value] : [])),
        ctx.now(),
      ),
    };
  },
});
