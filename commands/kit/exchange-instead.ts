import type { EntityKind } from '../../src/api/domain.js';
import { inline, ref } from '../../src/reply/inline.js';
import type { Reply } from '../../src/reply/model.js';
import type { HandlerContext } from './spec.js';

/**
 * A name that is no project but exactly one exchange gets told so, with the exchange's card to
 * ask for instead: what is published for projects only (`why`) has no exchange form, and another
 * project is no answer.
 */
export function exchangeInstead(ctx: HandlerContext, text: string, why: string): Promise<Reply | undefined> {
  return otherKind(ctx, text, 'exchange', why);
}

/** The same the other way round: a name that is no exchange but exactly one project (`exposure aave`). */
export function projectInstead(ctx: HandlerContext, text: string, why: string): Promise<Reply | undefined> {
  return otherKind(ctx, text, 'project', why);
}

async function otherKind(ctx: HandlerContext, text: string, kind: EntityKind, why: string): Promise<Reply | undefined> {
  if (!ctx.source.supports('list', kind)) return undefined;
  const r = await ctx.resolver.resolve(text, kind).catch(() => undefined);
  if (r?.status !== 'resolved') return undefined;
  const e = r.entity;
  return {
    kind: 'error',
    message: `${e.name} is ${kind === 'exchange' ? 'an exchange' : 'a project'}, and ${why}.`,
    hint: inline`See the ${kind}'s card with ${ref(kind, { name: e.slug })}.`,
  };
}
