import { resolveActions } from '../src/alerts/message.js';
import { RESOLVE_REASONS, type ResolveReason } from '../src/alerts/reason.js';
import { inline, ref } from '../src/reply/inline.js';
import { alertStepCommand } from './kit/alert-step.js';
import { str, type Parsed } from './kit/spec.js';

/**
 * `alert resolve 12 as noise`: the alert's number, then why. The reason is one of four, checked
 * with the command's other options on every surface; a word that is none of them is refused with
 * the four, before anything changes. Without a reason the person is asked, each answer the whole command.
 */
function parseResolve(rest: string): Parsed {
  const text = rest.trim();
  if (!text) return { ok: true, args: {} };
  const m = /^#?(\d{1,9})(?:\s+(.+))?$/.exec(text);
  if (!m) return { ok: false, message: `'${text.split(' ')[0]!.slice(0, 20)}' is not an alert number.` };
  const said = m[2]?.trim();
  if (said === undefined) return { ok: true, args: { id: Number(m[1]) } };
  // `as` is the grammar's word; the reason alone is read the same.
  const reason = said.replace(/^as(?:\s+|$)/i, '').trim();
  if (!reason)
    return { ok: false, message: `Resolve as what? Say ${RESOLVE_REASONS.slice(0, -1).join(', ')} or ${RESOLVE_REASONS.at(-1)}.` };
  return { ok: true, args: { id: Number(m[1]), reason } };
}

export default alertStepCommand({
  verb: 'resolve',
  order: 59,
  aliases: ['close'],
  summary: 'Resolve an alert, saying why: real, noise, duplicate or expected',
  examples: ['alert resolve 12 as noise', 'alert resolve 12'],
  extra: {
    type: 'choice',
    name: 'reason',
    description: 'Why: real, noise, duplicate or expected',
    choices: RESOLVE_REASONS.map((value) => ({ value })),
  },
  text: {
    usage: `<id> [as ${RESOLVE_REASONS.join('|')}]`,
    parse: parseResolve,
    format: (args) => [str(args, 'id'), str(args, 'reason') && `as ${str(args, 'reason')}`].filter(Boolean).join(' '),
  },
  ask: (id, args) =>
    str(args, 'reason')
      ? undefined
      : {
          kind: 'choice',
          reason: 'question',
          audience: 'asker',
          query: String(id),
          prompt: `Why is alert #${id} resolved?`,
          options: resolveActions(id),
          note: inline`The reason shows on the alert; ${ref('alert-stats')} counts each rule’s noise from it.`,
        },
  step: (args) => ({ kind: 'resolve', reason: str(args, 'reason') as ResolveReason }),
});
