import type { ResolveReason } from '../../src/alerts/reason.js';
import { AlertService, type AlertServiceOptions } from '../../src/alerts/service.js';
import { AlertStore, type AlertRule, type NewRule } from '../../src/alerts/store.js';
import { openPglite, type Db } from '../../src/db/connection.js';
import { migrate } from '../../src/db/migrations.js';

export const MINUTE = 60_000;
export const DAY = 86_400_000;

/** A migrated PGlite database of its own, and an alert service on it. */
export async function alertsOnPglite(options: Omit<AlertServiceOptions, 'store'>): Promise<{ db: Db; service: AlertService }> {
  const db = await openPglite();
  await migrate(db);
  return { db, service: new AlertService({ store: new AlertStore(db), ...options }) };
}

/**
 * A rule written through the store as `alert add` writes it: in a Slack channel, `pol above 5%`
 * checked every 5 minutes with no cooldown unless `rule` says otherwise (a condition and its text
 * go together), within the default limits. Fails the test when the store refuses it.
 */
export async function addRule(
  store: AlertStore,
  rule: Pick<NewRule, 'channelId' | 'entities'> & Partial<NewRule>,
  at: number,
): Promise<AlertRule> {
  const created = await store.create(
    {
      platform: 'slack',
      workspaceId: null,
      condition: { kind: 'pol_above', threshold: 0.05 },
      conditionText: 'pol above 5%',
      everySec: 300,
      cooldownSec: 0,
      createdBy: 'U0MAKER01',
      ...rule,
    },
    at,
    { perChannel: 20, perWorkspace: 200 },
  );
  if (!created.ok) throw new Error(`rule not created: ${created.reason}`);
  return created.rule;
}

/** One alert of a rule's past: when it opened, whether and when someone acknowledged it, and why it was resolved. */
export interface PastAlert {
  openedAt: number;
  /** Minutes from opening to the acknowledgement; left out when nobody acknowledged it. */
  ackAfterMin?: number;
  reason: ResolveReason;
}

/**
 * A rule's history written through the store with explicit times, as its checks and the people in
 * the channel would have written it: each alert opened on the rule's first name, its message
 * recorded as posted at that moment, acknowledged if said, and resolved with its reason an hour
 * after that. In the order given, each closed before the next opens. Returns the alerts' numbers.
 */
export async function writeHistory(store: AlertStore, rule: AlertRule, past: readonly PastAlert[], by = 'U0HISTORY'): Promise<number[]> {
  const where = { platform: rule.platform, channelId: rule.channelId };
  const e = rule.entities[0]!;
  const ids: number[] = [];
  for (const p of past) {
    const { incident, opened } = await store.openIncident(rule.id, e.kind, e.slug, { holds: true }, p.openedAt);
    if (!opened) throw new Error(`rule #${rule.id} has an alert open already`);
    const [claimed] = await store.claimUndelivered({
      now: p.openedAt,
      instance: 'history',
      leaseMs: MINUTE,
      limit: 1,
      platforms: [rule.platform],
    });
    if (claimed?.incident.id !== incident.id) throw new Error('another alert was waiting to be posted: write history before it');
    if (!(await store.delivered(incident.id, 'history', `history-${incident.id}`, p.openedAt))) throw new Error('not recorded');
    if (p.ackAfterMin !== undefined) await store.act(incident.id, where, { kind: 'acknowledge', by }, p.openedAt + p.ackAfterMin * MINUTE);
    const resolved = await store.act(
      incident.id,
      where,
      { kind: 'resolve', by, reason: p.reason },
      p.openedAt + ((p.ackAfterMin ?? 0) + 60) * MINUTE,
    );
    if (resolved?.status !== 'resolved') throw new Error(`alert #${incident.id} was not resolved`);
    ids.push(incident.id);
  }
  return ids;
}
