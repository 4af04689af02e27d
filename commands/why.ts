import { resolveTarget } from './kit/resolve-target.js';
import { defineCommand, str } from './kit/spec.js';
import { parseTarget } from './kit/target.js';
import { whyCard } from './kit/why-card.js';

export default defineCommand({
  name: 'why',
  order: 13,
  words: ['why'],
  summary: 'Why this PoL: the metrics that push it up most and those that hold it down',
  examples: ['why pepe', 'why binance'],
  options: [
    {
      type: 'entity',
      name: 'name',
      description: 'Project or exchange (pick from the list, or type a name)',
      required: true,
      missing: 'Whose PoL should I explain?',
    },
  ],
  async handler(ctx, args) {
    const resolved = await resolveTarget(ctx, parseTarget(str(args, 'name')), (name) => ({ command: 'why', args: { name } }));
    if (!resolved.ok) return resolved.reply;
    return whyCard(ctx, resolved.entity);
  },
});
