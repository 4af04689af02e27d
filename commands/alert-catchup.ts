import { targetText } from '../src/alerts/mutes.js';
import { entityOf, statusOf, utcTime } from '../src/alerts/message.js';
import type { AlertRule, IncidentView } from '../src/alerts/store.js';
import * as fmt from '../src/reply/format.js';
import { inline, ref } from '../src/reply/inline.js';
import type { Inline, Section, TextReply } from '../src/reply/model.js';
import { withAlerts } from './kit/alert.js';
import { defineCommand, str } from './kit/spec.js';

const WINDOW_HOURS: Readonly<Record<string, number>> = { '24h': 24, '7d': 168 };
const HOUR = 3_600_000;

type Entry = { incident: IncidentView; rule: AlertRule };

export default defineCommand({
  name: 'alert-catchup',
  order: 61,
  words: ['alert', 'catchup'],
  aliases: [['alert', 'catch-up']],
  summary: 'What happened to this channel’s alerts while you were away, for you alone',
  examples: ['alert catchup', 'alert catchup 7d'],
  group: 'alert',
  preconditions: ['alerts'],
  // Catching up is one person's business: the channel does not need a wall of history.
  audience: 'asker',
  options: [
    {
      type: 'choice',
      name: 'window',
      description: 'Over the last 24h or 7d (default 24h)',
      choices: Object.keys(WINDOW_HOURS).map((value) => ({ value })),
      aliases: { '1d': '24h', '1w': '7d', '168h': '7d' },
      default: '24h',
    },
  ],
  handler: (ctx, args) =>
    withAlerts(ctx, async (service): Promise<TextReply> => {
      const { platform, channelId } = ctx.caller;
      const window = str(args, 'window');
      const now = ctx.now();
      const since = now - WINDOW_HOURS[window]! * HOUR;
      const [entries, mutes] = await Promise.all([
        service.store.catchup(platform, channelId, since),
        service.store.mutes.since(platform, channelId, since),
      ]);
      const title = `Alerts in this channel over the last ${window === '7d' ? '7 days' : '24 hours'}`;
      const within = (t: number | null) => t !== null && t >= since;
      const sections: Section[] = [
        section(
          'Opened',
          entries.filter((e) => e.incident.openedAt >= since),
          (e) => [name(e), ` · ${e.rule.conditionText} · at ${utcTime(e.incident.openedAt)}`],
        ),
        section(
          'Still open',
          entries.filter((e) => ['open', 'acknowledged', 'snoozed'].includes(e.incident.status)),
          (e) => [name(e), ` · open ${fmt.age(now - e.incident.openedAt)} · `, ...statusOf(e.incident, now)],
        ),
        section(
          'Acknowledged',
          entries.filter((e) => within(e.incident.acknowledgedAt)),
          (e) => [name(e), ' · ', ...acknowledgement(e.incident)],
        ),
        section(
          'Resolved',
          entries.filter((e) => e.incident.status === 'resolved' && within(e.incident.closedAt)),
          (e) => [name(e), ' · ', ...statusOf(e.incident, now)],
        ),
        section(
          'Cleared by itself',
          entries.filter((e) => e.incident.status === 'cleared' && within(e.incident.closedAt)),
          (e) => [name(e), ` · ${e.rule.conditionText} no longer holds, at ${utcTime(e.incident.closedAt ?? now)}`],
        ),
        section(
          'Held by a mute, not posted',
          entries.filter((e) => e.incident.deliveryState === 'muted'),
          (e) => [
            name(e),
            ` · ${e.rule.conditionText} · at ${utcTime(e.incident.openedAt)} · ${e.incident.status === 'cleared' ? 'cleared before the mute ended' : 'still muted'}`,
          ],
        ),
        mutes.length
          ? {
              title: `Muted (${mutes.length})`,
              items: mutes.map(
                (m): Inline => [
                  `${targetText(m.target)} by `,
                  { user: m.setById ?? m.setBy, ...(m.setById ? { name: m.setBy } : {}) },
                  ` from ${utcTime(m.setAt)} ${m.endedAt !== null && m.endedAt < m.until ? `to ${utcTime(m.endedAt)} (ended early)` : m.until > now ? `until ${utcTime(m.until)}` : `to ${utcTime(m.until)}`}`,
                ],
              ),
            }
          : null,
      ].filter((s): s is Section => s !== null);
      if (!sections.length) {
        return {
          kind: 'text',
          title,
          text: inline`Nothing opened, moved or closed, and nothing is open. See the rules with ${ref('alert-list')}.`,
        };
      }
      return { kind: 'text', title, text: 'Times are UTC; PoL: lower is safer.', sections };
    }),
});

function section(
  title: string,
  entries: readonly Entry[],
  line: (e: Entry) => (string | Exclude<Inline, string>[number])[],
): Section | null {
  if (!entries.length) return null;
  return { title: `${title} (${entries.length})`, items: entries.map((e) => [`#${e.incident.id} `, ...line(e)]) };
}

const name = (e: Entry): string => entityOf(e).name;

/** Who acknowledged it: the status line of an incident still acknowledged, else the stored person alone. */
function acknowledgement(i: IncidentView): (string | Exclude<Inline, string>[number])[] {
  const at = i.acknowledgedAt === null ? '' : ` at ${utcTime(i.acknowledgedAt)}`;
  if (i.acknowledgedById)
    return ['acknowledged by ', { user: i.acknowledgedById, ...(i.acknowledgedBy ? { name: i.acknowledgedBy } : {}) }, at];
  return [`acknowledged by ${i.acknowledgedBy ?? 'someone'}${at}`];
}
