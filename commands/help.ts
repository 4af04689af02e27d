import type { Reply } from '../src/reply/model.js';
import { HELP } from './grammar.js';

export function helpCommand(): Reply {
  return {
    kind: 'text',
    title: 'polbot: crypto risk intelligence',
    text: 'Probability of Loss (PoL) is the chance of losing funds: lower is safer. Category quality scores run 0–100: higher is better.',
    sections: [
      { title: 'Commands', fields: HELP.map((h) => ({ label: h.usage, value: h.summary, detail: `e.g. ${h.example}` })) },
    ],
  };
}
