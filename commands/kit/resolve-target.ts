import type { EntityKind, EntityRef } from '../../src/api/domain.js';
import { inline, placeholder, ref } from '../../src/reply/inline.js';
import type { Action, ChoiceReply, CommandRef, Inline } from '../../src/reply/model.js';
import type { CommandContext } from './context.js';
import { targetRef, type Target } from './target.js';

export type TargetResult = { ok: true; entity: EntityRef } | { ok: false; reply: ChoiceReply };

export function describe(r: EntityRef): string {
  return `${r.name}${r.ticker ? ` (${r.ticker})` : ''} · ${r.kind}`;
}

/**
 * One entity, or a choice for the person. `rebuild` turns a candidate into the command to run
 * when it is chosen, so a choice made in a `chart` or `compare` keeps its other arguments.
 */
export async function resolveTarget(
  ctx: CommandContext,
  target: Target,
  rebuild: (ref: string) => CommandRef,
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
    run: rebuild(targetRef(c.kind, c.slug)),
  }));
  const what = wanted ?? 'project or exchange';
  if (r.status === 'ambiguous') {
    return {
      ok: false,
      reply: {
        kind: 'choice',
        reason: 'ambiguous',
        query: r.query,
        prompt: `“${r.query}” matches more than one ${what}. Which one do you mean?`,
        options,
      },
    };
  }
  const note: Inline | undefined =
    r.reason === 'exchange_names_unavailable'
      ? inline`Exchange names cannot be looked up through the tool server, so exchanges are named by their slug (often the name in lower case, with dashes: gate-io). Type it with ${ref('exchange', { name: placeholder('slug') })}.`
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
        ? `I found no ${what} called “${r.query}”. Did you mean one of these?`
        : ctx.source.supports('search')
          ? inline`I found no ${what} called “${r.query}”. Try ${ref('search', { text: r.query.slice(0, 30) })}.`
          : `I found no ${what} called “${r.query}”.`,
      options,
      ...(note ? { note } : {}),
    },
  };
}
