import { SECTION_OPTION, showSection } from './kit/section-card.js';
import { EXCHANGE_SECTION_WORDS, SECTION_WORDS } from './kit/sections.js';
import { defineCommand } from './kit/spec.js';

export default defineCommand({
  name: 'section',
  order: 12,
  words: ['section'],
  summary: 'One section of a project or an exchange: its quality score (higher is better) and what stands behind it',
  examples: [
    'section pepe security',
    'section aave financial',
    'section uniswap operational',
    'section pepe reputational',
    'section pepe regulatory',
    'section aave voice',
    'section binance transparency',
    'section kraken solvency',
    'section okx dashboard',
  ],
  options: [
    {
      type: 'entity',
      name: 'name',
      description: 'Project or exchange (pick from the list, or type a name)',
      required: true,
      missing: 'Which project or exchange?',
    },
    {
      ...SECTION_OPTION,
      required: true,
      missing: `Which section? A project has ${SECTION_WORDS.join(', ')}; an exchange has ${EXCHANGE_SECTION_WORDS.join(', ')}.`,
    },
  ],
  handler: (ctx, args) => showSection(ctx, args, 'section'),
});
