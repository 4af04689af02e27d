import { showCard } from './kit/show-card.js';
import { PROJECT_SECTION_OPTION, showSection } from './kit/section-card.js';
import { defineCommand, str } from './kit/spec.js';

export default defineCommand({
  name: 'project',
  order: 11,
  words: ['project'],
  summary: 'Score card of a project',
  examples: ['project lido dao'],
  options: [
    {
      type: 'entity',
      kind: 'project',
      name: 'name',
      description: 'Project (pick from the list, or type a name)',
      required: true,
      missing: 'Which project?',
    },
    { ...PROJECT_SECTION_OPTION, description: 'A section of the project instead of its card' },
  ],
  handler: (ctx, args) => (str(args, 'section') ? showSection(ctx, args, 'project', 'project') : showCard(ctx, args, 'project', 'project')),
});
