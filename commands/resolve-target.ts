import type { EntityKind, EntityRef } from '../src/api/domain.js';
import type { Action, ChoiceReply } from '../src/reply/model.js';
import type { CommandContext } from './context.js';
import type { Target } from './grammar.js';
import { targetRef } from './parse.js';

export type TargetResult = { ok: true; entity: EntityRef } | { ok: false; reply: ChoiceReply };

const KIND_LABEL: Record<EntityKind, string> = { project: 'project', exchange: 'exchange' };

export function describe(ref: EntityRef): string {
  return `${ref.name}${ref.ticker ? ` (${ref.ticker})` : ''} · ${KIND_LABEL[ref.kind]}`;
}

/**
 * One entity, or a choice for the person. `rebuild` turns a candidate into the command to run
 * when it is chosen, so a choice made in a `chart` or `compare` keeps its other arguments.
 */
export async function resolveTarget(
  ctx: CommandContext,
  target: Target,
  rebuild: (ref: string) => string,
  kind?: EntityKind,
): Promise<TargetResult> {
  if (target.explicit) {
    const { kind: k, slug } = target.explicit;
    return { ok: true, entity: { kind: k, slug, name: slug } };
  }
  const wanted = kind ?? target.kind;
  const r = await ctx.resolver.resolve(target.text, wanted);
  if (r.status === 'resolved') return { ok: true, entity: r.entity };
  const options: Action[] = (r.status === 'ambiguous' ? r.candidates : r.suggestions).map((c) => ({
    label: c.name,
    description: describe(c),
    command: rebuild(targetRef(c.kind, c.slug)),
  }));
  if (r.status === 'ambiguous') {
    return {
      ok: false,
      reply: {
        kind: 'choice',
        reason: 'ambiguous',
        query: r.query,
        prompt: `“${r.query}” matches more than one ${wanted ?? 'project or exchange'}. Which one do you mean?`,
        options,
      },
    };
  }
  const note =
    r.reason === 'exchange_names_unavailable'
      ? 'Exchange names cannot be looked up through the tool server. If you meant an exchange, type its slug: /pol exchange <slug>.'
      : r.reason === 'too_long'
        ? 'Names are at most 100 characters.'
        : undefined;
  return {
    ok: false,
    reply: {
      kind: 'choice',
      reason: 'not_found',
      query: r.query,
      prompt: options.length
        ? `I found no ${wanted ?? 'project or exchange'} called “${r.query}”. Did you mean one of these?`
        : `I found no ${wanted ?? 'project or exchange'} called “${r.query}”. Try /pol search ${r.query.slice(0, 30)}.`,
      options,
      ...(note ? { note } : {}),
    },
  };
}
