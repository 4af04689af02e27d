import { inline, ref } from '../../src/reply/inline.js';
import type { Reply } from '../../src/reply/model.js';
import type { HandlerContext } from './spec.js';

/**
 * A name that is no project but exactly one exchange gets told so, with the exchange's card to
 * ask for instead: what is published for projects only (`why`) has no exchange form, and another
 * project is no answer.
 */
export async function exchangeInstead(ctx: HandlerContext, text: string, why: string): Promise<Reply | undefined> {
  if (!ctx.source.supports('list', 'exchange')) return undefined;
  const r = await ctx.resolver.resolve(text, 'exchange').catch(() => undefined);
  if (r?.status !== 'resolved') return undefined;
  const e = r.entity;
  return {
    kind: 'error',
    message: `${e.name} is an exchange, and ${why}.`,
    hint: inline`See the exchange's card with ${ref('exchange', { name: e.slug })}.`,
  };
}
