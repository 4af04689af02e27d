import { EXCHANGE_SECTION_OPTION, showSection } from './kit/section-card.js';
import { showCard } from './kit/show-card.js';
import { defineCommand, EXCHANGE_NAME, str } from './kit/spec.js';

export default defineCommand({
  name: 'exchange',
  order: 12,
  words: ['exchange'],
  summary: 'Score card of an exchange',
  examples: ['exchange gate-io'],
  options: [
    EXCHANGE_NAME,
    // `/pol exchange binance solvency`: a section of the exchange instead of its card.
    { ...EXCHANGE_SECTION_OPTION, description: 'A section of the exchange instead of its card' },
  ],
  handler: (ctx, args) =>
    str(args, 'section') ? showSection(ctx, args, 'exchange', 'exchange') : showCard(ctx, args, 'exchange', 'exchange'),
});
