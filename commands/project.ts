import { showCard } from './kit/show-card.js';
import { defineCommand } from './kit/spec.js';

export default defineCommand({
  name: 'project',
  order: 11,
  words: ['project'],
  summary: 'Score card of a project',
  examples: ['project lido dao'],
  options: [{ type: 'entity', kind: 'project', name: 'name', description: 'Project (pick from the list, or type a name)', required: true, missing: 'Which project?' }],
  handler: (ctx, args) => showCard(ctx, args, 'project', 'project'),
});
