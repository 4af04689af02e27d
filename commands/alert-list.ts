import { inline, ref } from '../src/reply/inline.js';
import type { Action, Inline, TableReply } from '../src/reply/model.js';
import { durationText } from '../src/alerts/duration.js';
import { utcTime } from '../src/alerts/message.js';
import { targetText } from '../src/alerts/mutes.js';
import { typedTarget } from './kit/mute.js';
import { escalationText } from '../src/alerts/escalation.js';
import { noRulesYet, RULE_COLUMNS, ruleCells, withAlerts } from './kit/alert.js';
import { defineCommand } from './kit/spec.js';

export default defineCommand({
  name: 'alert-list',
  order: 52,
  words: ['alert', 'list'],
  aliases: [['alert', 'ls']],
  summary: 'The alert rules of this channel',
  examples: ['alert list'],
  group: 'alert',
  preconditions: ['alerts'],
  options: [],
  handler: (ctx) =>
    withAlerts(ctx, async (service) => {
      const { platform, channelId } = ctx.caller;
      const [rules, open, mutes] = await Promise.all([
        service.store.listChannel(platform, channelId),
        service.store.openCounts(platform, channelId),
        service.store.mutes.active(platform, channelId, ctx.now()),
      ]);
      const notifying = rules.some((r) => r.notify.length > 0);
      const escalating = rules.some((r) => r.escalation.length > 0);
      const failures = notifying ? await service.destinationFailures(rules.map((r) => r.id)) : [];
      const undelivered = failures.map((f) => `#${f.ruleId} to ${f.destination}: ${f.reason}`);
      if (rules.length === 0) return noRulesYet();
      const paused = rules.filter((r) => r.state === 'paused');
      // Why each paused rule stopped, said once per reason: the table keeps to what fits a column.
      const reasons = [...new Set(paused.map((r) => (r.stateReason ?? 'paused').replace(/^paused: /, '')))].map(
        (why) =>
          `${paused
            .filter((r) => (r.stateReason ?? 'paused').replace(/^paused: /, '') === why)
            .map((r) => `#${r.id}`)
            .join(', ')}: ${why}`,
      );
      const table: TableReply = {
        kind: 'table',
        title: `Alert rules in this channel (${rules.length} of at most ${service.limits.perChannel})`,
        note: withMore(
          paused.length
            ? inline`Paused (${reasons.join('; ')}). Paused rules are not checked; fix the cause if one is given, then ${ref('alert-resume', { id: paused.length === 1 ? String(paused[0]!.id) : 'all' })}.`
            : 'Each rule posts one message per alert; further crossings go in its thread.',
          // Whole, in the note: three steps with their groups do not fit a column.
          escalating
            ? ` Escalation while unacknowledged: ${rules
                .filter((r) => r.escalation.length)
                .map((r) => `#${r.id} ${escalationText(r.escalation)}`)
                .join('; ')}.`
            : '',
          // A destination that could not be told is said here, where the people who set it look.
          undelivered.length ? ` Not delivered outside chat in the last day: ${undelivered.join('; ')}.` : '',
        ),
        columns: [
          ...RULE_COLUMNS,
          { key: 'every', label: 'Every' },
          ...(notifying ? [{ key: 'notify', label: 'Also tells' }] : []),
          { key: 'open', label: 'Open alerts', align: 'right' },
          { key: 'state', label: 'State' },
        ],
        rows: rules.map((r) => ({
          ...ruleCells(r),
          every: durationText(r.everySec),
          ...(notifying ? { notify: r.notify.join(', ') || '—' } : {}),
          open: String(open.get(r.id) ?? 0),
          state: r.state,
        })),
        ...(mutes.length
          ? {
              sections: [
                {
                  title: 'Muted (crossings recorded, not posted)',
                  items: mutes.map(
                    (m): Inline => [
                      `${targetText(m.target)} until ${utcTime(m.until)}, by `,
                      { user: m.setById ?? m.setBy, ...(m.setById ? { name: m.setBy } : {}) },
                    ],
                  ),
                },
              ],
            }
          : {}),
        actions: [
          ...mutes.slice(0, 2).map(
            (m): Action => ({
              label: `Unmute ${targetText(m.target)}`.slice(0, 60),
              run: { command: 'alert-unmute', args: { target: typedTarget(m.target) } },
            }),
          ),
          ...(paused.length > 1 ? [{ label: 'Resume all', run: { command: 'alert-resume', args: { id: 'all' } } }] : []),
          ...rules
            .slice(0, Math.max(0, 4 - Math.min(2, mutes.length)))
            .map((r): Action => ({ label: `Test #${r.id}`, run: { command: 'alert-test', args: { id: String(r.id) } } })),
        ],
      };
      return table;
    }),
});

/** The table's note, and after it what else a rule's people need to know (each empty when there is nothing). */
function withMore(note: Inline, ...more: string[]): Inline {
  const said = more.filter(Boolean);
  if (!said.length) return note;
  return [...(typeof note === 'string' ? [note] : note), ...said];
}
