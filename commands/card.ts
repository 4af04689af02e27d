import { showCard } from './kit/show-card.js';
import { defineCommand } from './kit/spec.js';

export default defineCommand({
  name: 'card',
  order: 10,
  words: [],
  summary: 'Score card: PoL, rating, category scores, red flags and a chart (projects and exchanges both searched)',
  examples: ['binance'],
  options: [{ type: 'entity', name: 'name', description: 'Project or exchange (pick from the list, or type a name)', required: true, missing: 'Which project or exchange?' }],
  handler: (ctx, args) => showCard(ctx, args, 'card'),
});
