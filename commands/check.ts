import { settle } from '../src/api/settle.js';
import * as fmt from '../src/reply/format.js';
import { footerOf } from '../src/reply/footer.js';
import type { Inline, Section, TextReply } from '../src/reply/model.js';
import { partMissing } from './kit/card.js';
import { describe } from './kit/resolve-target.js';
import { defineCommand, str } from './kit/spec.js';
import { targetRef } from './kit/target.js';

const MAX_SHOWN = 5;

/**
 * The projects and exchanges a piece of text names (a chat message, checked from the message's
 * own menu), each in short: PoL and rating. A name that could be several is listed with what it
 * could be, never answered for one of them.
 */
export default defineCommand({
  name: 'check',
  order: 19,
  words: ['check'],
  summary: 'Find the projects and exchanges a message names and show each in short',
  examples: ['check moving funds from Kraken to OKX, then into $UNI'],
  options: [
    {
      type: 'text',
      name: 'text',
      description: 'The text to look through',
      required: true,
      maxLength: 4000,
      missing: 'Which text? Paste the message to check.',
    },
  ],
  audience: 'asker',
  async handler(ctx, args) {
    const { found, ambiguous } = await ctx.resolver.findIn(str(args, 'text'), MAX_SHOWN + 1);
    const shown = found.slice(0, MAX_SHOWN);
    const pols = await Promise.all(shown.map((e) => settle(ctx.source.polCurrent(e.kind, e.slug))));
    const sections: Section[] = shown.map((e, i) => {
      const p = pols[i]!;
      return {
        title: describe(e),
        direction: 'lower is safer',
        fields: p.ok
          ? [
              { label: 'PoL', value: fmt.pol(p.value.data.pol) },
              { label: 'Rating', value: fmt.rating(p.value.data.rating) },
            ]
          : [{ label: 'PoL', value: partMissing(p.error) }],
      };
    });
    for (const a of ambiguous) sections.push({ title: `“${a.query}” could be several`, items: a.candidates.map(describe) });
    // Each of those can be looked at by name made exact.
    const exact = ambiguous.flatMap((a) => a.candidates.slice(0, 3)).slice(0, 6);
    const choose: Inline = exact.length
      ? [
          'Name one exactly: ',
          ...exact.flatMap((c, i) => [...(i ? [' · '] : []), { ref: { command: 'card', args: { name: targetRef(c.kind, c.slug) } } }]),
          '.',
        ]
      : [];
    const reply: TextReply = {
      kind: 'text',
      audience: 'asker',
      title: found.length
        ? `Named in that message: ${shown.map((e) => e.name).join(', ')}`
        : 'No project or exchange names found in that message',
      ...(found.length > MAX_SHOWN
        ? { text: [`Showing the first ${MAX_SHOWN}. `, ...choose] }
        : !found.length && !ambiguous.length
          ? { text: 'Names count when written in full (Lido DAO), as a slug (lido-dao) or as a ticker ($LDO or LDO).' }
          : choose.length
            ? { text: choose }
            : {}),
      sections,
      ...(shown.length
        ? {
            footer: footerOf(
              pols.flatMap((p) => (p.ok ? [p.value] : [])),
              ctx.now(),
            ),
          }
        : {}),
    };
    return reply;
  },
});
