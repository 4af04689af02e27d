import type { EntityRef } from '../../src/api/domain.js';
import type { AlertService } from '../../src/alerts/service.js';
import type { MuteTarget } from '../../src/alerts/mutes.js';
import { inline, ref } from '../../src/reply/inline.js';
import type { ErrorReply, Reply } from '../../src/reply/model.js';
import { missingRule, noRulesYet } from './alert.js';
import { resolveWatchlist } from './resolve-watchlist.js';
import type { HandlerContext } from './spec.js';

/**
 * What `alert mute` and `alert unmute` name: `all` (the channel), `rule 3`, or a project or
 * exchange (resolved refusal-first, and watched by a rule of this channel).
 */
export type TargetWords = { scope: 'channel' } | { scope: 'rule'; ruleId: number } | { scope: 'entity'; name: string };

export function targetWords(text: string): TargetWords | null {
  const t = text.trim();
  if (!t) return null;
  if (/^(all|everything|channel|this channel)$/i.test(t)) return { scope: 'channel' };
  const rule = /^rule\s*#?(\d{1,9})$/i.exec(t);
  if (rule) return { scope: 'rule', ruleId: Number(rule[1]) };
  return { scope: 'entity', name: t };
}

/** A target as typed back: `all`, `rule 3`, `pepe`. */
export const typedTarget = (t: MuteTarget): string =>
  t.scope === 'channel' ? 'all' : t.scope === 'rule' ? `rule ${t.ruleId}` : `${t.entity.kind}:${t.entity.slug}`;

/**
 * The target as the channel's rules know it, or the reply to give instead: a rule from another
 * channel is not found, a name is resolved (an ambiguous one asks, `again` rebuilding the command
 * with the choice), and a name no rule of the channel watches has nothing to mute.
 */
export async function channelTarget(
  ctx: HandlerContext,
  service: AlertService,
  words: TargetWords,
  again: { command: string; args: (name: string) => Record<string, string> },
): Promise<{ ok: true; target: MuteTarget } | { ok: false; reply: Reply }> {
  const { platform, channelId } = ctx.caller;
  const rules = await service.store.listChannel(platform, channelId);
  if (words.scope === 'channel') return rules.length ? { ok: true, target: words } : { ok: false, reply: noRulesYet() };
  if (words.scope === 'rule') {
    const rule = rules.find((r) => r.id === words.ruleId);
    return rule ? { ok: true, target: words } : { ok: false, reply: missingRule(words.ruleId) };
  }
  const resolved = await resolveWatchlist(ctx, [words.name], ([name]) => ({ command: again.command, args: again.args(name!) }));
  if (!resolved.ok) return resolved;
  const entity = resolved.entities[0]!;
  if (!rules.some((r) => r.entities.some((e) => e.kind === entity.kind && e.slug === entity.slug)))
    return { ok: false, reply: unwatched(entity) };
  return { ok: true, target: { scope: 'entity', entity } };
}

function unwatched(e: EntityRef): ErrorReply {
  return {
    kind: 'error',
    message: `No alert rule in this channel watches ${e.name}, so there is nothing of it to mute.`,
    hint: inline`See this channel’s rules with ${ref('alert-list')}.`,
  };
}
