import * as fmt from '../src/reply/format.js';
import { footerOf } from '../src/reply/footer.js';
import type { Field } from '../src/reply/model.js';
import { showSection } from './kit/section-card.js';
import { defineCommand, str } from './kit/spec.js';

export default defineCommand({
  name: 'transparency',
  order: 25,
  words: ['transparency'],
  summary: 'How open exchanges are, across the market: proof of reserves, bug bounties, penetration tests (or one exchange’s transparency)',
  examples: ['transparency', 'transparency kraken'],
  options: [{ type: 'entity', kind: 'exchange', name: 'name', description: 'An exchange, for its own transparency section instead' }],
  async handler(ctx, args) {
    // `/pol transparency kraken` is what `/pol kraken transparency` is.
    if (str(args, 'name')) return showSection(ctx, { name: str(args, 'name'), section: 'transparency' }, 'transparency', 'exchange');
    const title = 'Transparency across exchanges';
    if (!ctx.source.supports('transparencyStats'))
      return { kind: 'text', title, text: 'Transparency statistics need the REST service; the tool server has no tool for them.' };
    const fetched = await ctx.source.transparencyStats();
    const s = fetched.data;
    const total = typeof s.exchanges === 'number' ? s.exchanges : undefined;
    const share = (n: typeof s.withBugBounty): Field['detail'] =>
      total && typeof n === 'number' ? `${fmt.percent((n / total) * 100, 0)} of exchanges` : undefined;
    const field = (label: string, n: typeof s.withBugBounty): Field => {
      const detail = share(n);
      return { label, value: fmt.count(n), ...(detail ? { detail } : {}) };
    };
    return {
      kind: 'text',
      title,
      sections: [
        { title: 'Exchanges rated', fields: [{ label: 'Exchanges', value: fmt.count(s.exchanges) }] },
        {
          title: 'Safeguards published (more is better)',
          fields: [
            field('Proof of reserves', s.withProofOfReserves),
            field('Bug bounty', s.withBugBounty),
            field('Penetration testing', s.withPenetrationTesting),
          ],
        },
        ...(s.averageTransparencyScore !== null
          ? [
              {
                title: 'Transparency quality score',
                direction: 'higher is better' as const,
                fields: [{ label: 'Average', value: `${fmt.score(s.averageTransparencyScore)} / 100` }],
              },
            ]
          : []),
      ],
      footer: footerOf([fetched], ctx.now()),
    };
  },
});
