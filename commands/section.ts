import { SECTION_OPTION, showSection } from './kit/section-card.js';
import { SECTION_WORDS } from './kit/sections.js';
import { defineCommand } from './kit/spec.js';

export default defineCommand({
  name: 'section',
  order: 12,
  words: ['section'],
  summary: 'One section of a project: its quality score (higher is better) and what stands behind it',
  examples: ['section pepe security', 'section aave financial', 'section uniswap operational', 'section pepe reputational', 'section pepe regulatory', 'section aave voice'],
  options: [
    { type: 'entity', kind: 'project', name: 'name', description: 'Project (pick from the list, or type a name)', required: true, missing: 'Which project?' },
    { ...SECTION_OPTION, required: true, missing: `Which section? ${SECTION_WORDS.join(', ')}` },
  ],
  handler: (ctx, args) => showSection(ctx, args, 'section'),
});
