import { defineCommand } from './kit/spec.js';

export default defineCommand({
  name: 'help',
  order: 31,
  words: ['help'],
  aliases: [['?']],
  summary: 'What polbot can do',
  examples: ['help'],
  options: [],
  audience: 'asker',
  handler: (ctx) => ({
    kind: 'text',
    title: 'polbot: crypto risk intelligence',
    text: 'Probability of Loss (PoL) is the chance of losing funds: lower is safer. Category quality scores run 0–100: higher is better.',
    commands: ctx.catalogue.help(),
  }),
});
