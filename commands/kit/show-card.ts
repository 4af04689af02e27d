import type { EntityKind } from '../../src/api/domain.js';
import type { Reply } from '../../src/reply/model.js';
import { entityCard } from './card.js';
import { resolveTarget } from './resolve-target.js';
import { str, type Args, type HandlerContext } from './spec.js';
import { parseTarget } from './target.js';

/** The card of whatever `name` resolves to; a choice re-runs this same command with the pick. */
export async function showCard(ctx: HandlerContext, args: Args, command: string, kind?: EntityKind): Promise<Reply> {
  const resolved = await resolveTarget(ctx, parseTarget(str(args, 'name'), kind), (name) => ({ command, args: { name } }), kind);
  if (!resolved.ok) return resolved.reply;
  return entityCard(ctx, resolved.entity);
}
