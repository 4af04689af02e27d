import { showCard } from './kit/show-card.js';
import { SECTION_OPTION, showSection } from './kit/section-card.js';
import { defineCommand, str } from './kit/spec.js';

export default defineCommand({
  name: 'card',
  order: 10,
  words: [],
  summary: 'Score card: PoL, rating, category scores, red flags and a chart (projects and exchanges both searched)',
  examples: ['binance', 'pepe security', 'binance solvency'],
  options: [
    {
      type: 'entity',
      name: 'name',
      description: 'Project or exchange (pick from the list, or type a name)',
      required: true,
      missing: 'Which project or exchange?',
    },
    // `/pol pepe security`, `/pol binance solvency`: a section, typed after the name.
    { ...SECTION_OPTION, description: 'A section of the project or exchange instead of its card' },
  ],
  handler: (ctx, args) => (str(args, 'section') ? showSection(ctx, args, 'card') : showCard(ctx, args, 'card')),
});
