import { showCard } from './kit/show-card.js';
import { defineCommand } from './kit/spec.js';

export default defineCommand({
  name: 'exchange',
  order: 12,
  words: ['exchange'],
  summary: 'Score card of an exchange',
  examples: ['exchange gate-io'],
  options: [
    {
      type: 'entity',
      kind: 'exchange',
      name: 'name',
      description: 'Exchange name or slug (pick from the list, or type a slug such as gate-io)',
      required: true,
      missing: 'Which exchange?',
    },
  ],
  handler: (ctx, args) => showCard(ctx, args, 'exchange', 'exchange'),
});
