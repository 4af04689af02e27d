import type { EntityRef } from '../../src/api/domain.js';
import { UpstreamError } from '../../src/api/errors.js';
import { inline, ref } from '../../src/reply/inline.js';
import type { CommandRef, ErrorReply, Reply } from '../../src/reply/model.js';
import type { CommandContext } from './context.js';
import { resolveTarget } from './resolve-target.js';
import { parseTarget } from './target.js';

/**
 * Every name of a watchlist (a digest's, an alert rule's) resolved now: what runs later never
 * guesses. The first name that needs a choice is asked about; `rebuild` turns the list with that
 * name made explicit into the command to run again. Duplicates are dropped.
 */
export async function resolveWatchlist(
  ctx: CommandContext,
  names: readonly string[],
  rebuild: (names: string[]) => CommandRef,
): Promise<{ ok: true; entities: EntityRef[] } | { ok: false; reply: Reply }> {
  const results = await Promise.all(
    names.map((n, i) => resolveTarget(ctx, parseTarget(n), (name) => rebuild(names.map((x, j) => (j === i ? name : x))))),
  );
  const entities: EntityRef[] = [];
  for (const r of results) {
    if (!r.ok) return { ok: false, reply: r.reply };
    const named = await withRealName(ctx, r.entity);
    if ('kind' in named && named.kind === 'error') return { ok: false, reply: named };
    const e = named as EntityRef;
    if (!entities.some((x) => x.kind === e.kind && x.slug === e.slug)) entities.push(e);
  }
  return { ok: true, entities };
}

/** A chosen button carries only a slug; the stored name must be the real one (and the entity real). */
async function withRealName(ctx: CommandContext, e: EntityRef): Promise<EntityRef | ErrorReply> {
  if (e.name !== e.slug) return e;
  try {
    const rec = await ctx.source.record(e.kind, e.slug);
    return { ...e, name: rec.data.name, ...(rec.data.kind === 'project' && rec.data.ticker ? { ticker: rec.data.ticker } : {}) };
  } catch (err) {
    if (err instanceof UpstreamError && err.kind === 'not_found') {
      return {
        kind: 'error',
        message: `There is no ${e.kind} '${e.slug}'.`,
        hint: ctx.source.supports('search') ? inline`Check the name with ${ref('search', { text: { placeholder: 'text' } })}.` : undefined,
      };
    }
    throw err;
  }
}
