import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertStore, type AlertRule, type NewRule } from '../../../src/alerts/store.js';
import type { Reading } from '../../../src/alerts/evaluate.js';
import { migrate } from '../../../src/db/migrations.js';
import { DAY, writeHistory } from '../../helpers/alerts.js';
import { ENGINES, testDatabase, type TestDatabase } from '../../helpers/digest/helpers.js';

/** Alert rules, what checks saw and incidents, on PGlite and on a real PostgreSQL with two replicas. */

const NOW = Date.parse('2026-11-22T07:00:00Z');
const MINUTE = 60_000;

const rule = (channelId: string, overrides: Partial<NewRule> = {}): NewRule => ({
  platform: 'slack',
  workspaceId: 'T1',
  channelId,
  entities: [
    { kind: 'exchange', slug: 'kraken', name: 'Kraken' },
    { kind: 'project', slug: 'aave', name: 'Aave', ticker: 'AAVE' },
  ],
  condition: { kind: 'pol_above', threshold: 0.05 },
  conditionText: 'pol above 5%',
  everySec: 300,
  cooldownSec: 3600,
  createdBy: 'U1',
  ...overrides,
});

const reading = (atMs: number, pol: number): Reading => ({ at: atMs / 1000, pol, rating: 'BBB', flags: [], categories: { security: 70 } });

describe.each(ENGINES)('alert store on %s', (engine) => {
  let database: TestDatabase;
  let a: AlertStore;
  let b: AlertStore;

  beforeAll(async () => {
    database = await testDatabase(engine);
    const first = await database.connect();
    await migrate(first);
    a = new AlertStore(first);
    b = new AlertStore(await database.connect());
  });
  afterAll(async () => {
    await database.dispose();
  });

  it('keeps rules per channel, within the channel and workspace limits, and shows a rule only in its own channel', async () => {
    const limits = { perChannel: 2, perWorkspace: 3 };
    const first = await a.create(rule('C1'), NOW, limits);
    expect(first).toMatchObject({ ok: true, rule: { channelId: 'C1', state: 'active', nextCheck: NOW, conditionText: 'pol above 5%' } });
    expect((await a.create(rule('C1'), NOW, limits)).ok).toBe(true);
    expect(await a.create(rule('C1'), NOW, limits)).toEqual({ ok: false, reason: 'channel_full', count: 2 });
    expect((await a.create(rule('C2'), NOW, limits)).ok).toBe(true);
    expect(await a.create(rule('C3'), NOW, limits)).toEqual({ ok: false, reason: 'workspace_full', count: 3 });
    const id = first.ok ? first.rule.id : 0;
    expect(await a.getInChannel(id, 'slack', 'C2')).toBeNull();
    expect((await a.listChannel('slack', 'C1')).map((r) => r.id)).toContain(id);
    expect(await a.pause(id, 'slack', 'C1', null)).toMatchObject({ state: 'paused' });
    expect(await a.resume(id, 'slack', 'C1', NOW + MINUTE)).toMatchObject({ state: 'active', nextCheck: NOW + MINUTE });
    expect(await a.pauseChannel('slack', 'C1', 'the channel was archived')).toBe(2);
    expect((await a.listChannel('slack', 'C1')).map((r) => r.stateReason)).toEqual([
      'the channel was archived',
      'the channel was archived',
    ]);
    expect(await a.remove(id, 'slack', 'C2')).toBe(false);
    expect(await a.remove(id, 'slack', 'C1')).toBe(true);
  });

  it('hands a due rule to one replica per check, and to another when the first one’s lease runs out', async () => {
    const created = await a.create(rule('C10', { workspaceId: 'T10' }), NOW, { perChannel: 5, perWorkspace: 5 });
    if (!created.ok) throw new Error('not created');
    const id = created.rule.id;
    const [x, y] = await Promise.all([
      a.claimDue({ now: NOW, instance: 'r1', leaseMs: 6 * MINUTE, limit: 100 }),
      b.claimDue({ now: NOW, instance: 'r2', leaseMs: 6 * MINUTE, limit: 100 }),
    ]);
    const claimedBy = [...x.map(() => 'r1'), ...y.map(() => 'r2')].filter((_, i) => [...x, ...y][i]!.id === id);
    expect(claimedBy).toHaveLength(1);
    const [claimed] = [...x, ...y].filter((r) => r.id === id);
    expect(claimed!.nextCheck).toBe(NOW + 300_000);
    // Nobody else may claim it while the lease holds, even once the next check is due.
    expect((await b.claimDue({ now: NOW + 300_000, instance: 'r3', leaseMs: MINUTE, limit: 100 })).map((r) => r.id)).not.toContain(id);
    // The holder died: after the lease, another replica takes it; the old holder's late write is refused.
    const taken = await b.claimDue({ now: NOW + 400_000, instance: 'r3', leaseMs: MINUTE, limit: 100 });
    expect(taken.map((r) => r.id)).toContain(id);
    expect(
      await a.recordCheck(id, claimedBy[0]!, NOW + 401_000, [
        { kind: 'exchange', slug: 'kraken', reading: reading(NOW, 0.03), holds: false },
      ]),
    ).toBe(false);
    expect(
      await b.recordCheck(id, 'r3', NOW + 401_000, [
        { kind: 'exchange', slug: 'kraken', reading: reading(NOW + 400_000, 0.03), holds: false },
      ]),
    ).toBe(true);
  });

  it('stores what each check saw, keeping earlier readings as history for windows', async () => {
    const created = await a.create(rule('C20', { workspaceId: 'T20' }), NOW, { perChannel: 5, perWorkspace: 5 });
    if (!created.ok) throw new Error('not created');
    const id = created.rule.id;
    for (const [i, pol] of [0.03, 0.04, 0.06].entries()) {
      const now = NOW + i * 300_000;
      await a.claimDue({ now, instance: 'r1', leaseMs: MINUTE, limit: 100 });
      expect(
        await a.recordCheck(id, 'r1', now, [{ kind: 'exchange', slug: 'kraken', reading: reading(now, pol), holds: pol >= 0.05 }]),
      ).toBe(true);
    }
    const checks = await a.entityChecks(id);
    const kraken = checks.find((c) => c.slug === 'kraken')!;
    expect(kraken.reading?.pol).toBe(0.06);
    expect(kraken.history.map((r) => r.pol)).toEqual([0.03, 0.04]);
    expect(kraken.holds).toBe(true);
    // Aave has not been seen yet.
    expect(checks.find((c) => c.slug === 'aave')).toMatchObject({ reading: null, history: [], holds: null });
  });

  it('opens one incident per crossing, whichever replicas saw it', async () => {
    const created = await a.create(rule('C30', { workspaceId: 'T30' }), NOW, { perChannel: 5, perWorkspace: 5 });
    if (!created.ok) throw new Error('not created');
    const id = created.rule.id;
    const verdict = { holds: true, change: { from: '3.1%', to: '5.4%', trend: 'worse' as const } };
    const opened = await Promise.all([a, b, a, b].map((s) => s.openIncident(id, 'exchange', 'kraken', verdict, NOW)));
    expect(opened.filter((o) => o.opened)).toHaveLength(1);
    expect(new Set(opened.map((o) => o.incident.id)).size).toBe(1);
    expect(await a.openIncidents(id)).toEqual([
      expect.objectContaining({ ruleId: id, kind: 'exchange', slug: 'kraken', status: 'open', verdict }),
    ]);
  });

  it('moves an incident by people’s steps from its own channel only: acknowledge, snooze, resolve, then nothing more', async () => {
    const created = await a.create(rule('C40', { workspaceId: 'T40' }), NOW, { perChannel: 5, perWorkspace: 5 });
    if (!created.ok) throw new Error('not created');
    const { incident } = await a.openIncident(created.rule.id, 'exchange', 'kraken', { holds: true }, NOW);
    const here = { platform: 'slack' as const, channelId: 'C40' };
    expect(await a.act(incident.id, { platform: 'slack', channelId: 'C41' }, { kind: 'acknowledge', by: 'U9' }, NOW)).toBeNull();
    expect(await a.act(incident.id, here, { kind: 'acknowledge', by: 'U2' }, NOW + MINUTE)).toMatchObject({
      status: 'acknowledged',
      acknowledgedBy: 'U2',
    });
    expect(await b.act(incident.id, here, { kind: 'snooze', by: 'U3', until: NOW + 61 * MINUTE }, NOW + MINUTE)).toMatchObject({
      status: 'snoozed',
      snoozedUntil: NOW + 61 * MINUTE,
      acknowledgedBy: 'U2',
    });
    await a.setMessageRef(incident.id, '1763800000.000100');
    expect(await a.act(incident.id, here, { kind: 'resolve', by: 'U4', reason: 'duplicate' }, NOW + 2 * MINUTE)).toMatchObject({
      status: 'resolved',
      closedBy: 'U4',
      closedAt: NOW + 2 * MINUTE,
      closedReason: 'duplicate',
      messageRef: '1763800000.000100',
    });
    // Closed: a late click changes nothing, and the incident reads as it was left.
    expect(await b.act(incident.id, here, { kind: 'acknowledge', by: 'U5' }, NOW + 3 * MINUTE)).toBeNull();
    expect(await a.incidentInChannel(incident.id, 'slack', 'C40')).toMatchObject({
      status: 'resolved',
      closedBy: 'U4',
      acknowledgedBy: 'U2',
    });
    // A new crossing may open a new incident once the last one is closed.
    expect((await a.openIncident(created.rule.id, 'exchange', 'kraken', { holds: true }, NOW + 4 * MINUTE)).opened).toBe(true);
  });

  it('hands each new incident to one replica to post, keeps a renewed claim, and lets another take over a claim that lapsed', async () => {
    const created = await a.create(rule('C50', { workspaceId: 'T50' }), NOW, { perChannel: 5, perWorkspace: 5 });
    if (!created.ok) throw new Error('not created');
    const { incident } = await a.openIncident(created.rule.id, 'exchange', 'kraken', { holds: true }, NOW);
    const mine = (claimed: { incident: { id: number } }[]) => claimed.filter((c) => c.incident.id === incident.id);
    const [x, y] = await Promise.all([claimDeliveryFor(a, 'r1'), claimDeliveryFor(b, 'r2')]);
    expect(mine(x).length + mine(y).length).toBe(1);
    const holder = mine(x).length ? 'r1' : 'r2';
    const other = holder === 'r1' ? 'r2' : 'r1';
    expect(mine([...x, ...y])[0]).toMatchObject({ incident: { id: incident.id }, rule: { channelId: 'C50' } });
    // A long delivery renews its claim: nobody takes it meanwhile.
    expect(await a.renewDelivery(incident.id, holder, NOW + 50_000, MINUTE)).toBe(true);
    expect(mine(await b.claimUndelivered({ now: NOW + 70_000, instance: other, leaseMs: MINUTE, limit: 100 }))).toEqual([]);
    // The holder dies: once its lease lapses another replica takes it, and the late write of the first is refused.
    expect(mine(await b.claimUndelivered({ now: NOW + 200_000, instance: other, leaseMs: MINUTE, limit: 100 }))).toHaveLength(1);
    expect(await a.delivered(incident.id, holder, 'stale-ts')).toBe(false);
    expect(await b.delivered(incident.id, other, '1763800000.000200')).toBe(true);
    expect(await a.incidentInChannel(incident.id, 'slack', 'C50')).toMatchObject({ messageRef: '1763800000.000200' });
    // Delivered: never claimed again.
    expect(mine(await a.claimUndelivered({ now: NOW + 900_000, instance: 'r9', leaseMs: MINUTE, limit: 100 }))).toEqual([]);
  });

  it('tries a delivery that failed for a while again after its lease, and gives up on one that cannot succeed', async () => {
    const created = await a.create(rule('C60', { workspaceId: 'T60' }), NOW, { perChannel: 5, perWorkspace: 5 });
    if (!created.ok) throw new Error('not created');
    const first = (await a.openIncident(created.rule.id, 'exchange', 'kraken', { holds: true }, NOW)).incident;
    const second = (await a.openIncident(created.rule.id, 'project', 'aave', { holds: true }, NOW)).incident;
    const ids = (claimed: { incident: { id: number } }[]) =>
      claimed
        .map((c) => c.incident.id)
        .filter((id) => id === first.id || id === second.id)
        .sort();
    expect(ids(await a.claimUndelivered({ now: NOW, instance: 'r1', leaseMs: MINUTE, limit: 100 }))).toEqual([first.id, second.id].sort());
    expect(await a.deliveryFailed(first.id, 'r1', 'Slack did not accept the message; it will be retried', false)).toBe(true);
    expect(await a.deliveryFailed(second.id, 'r1', 'the channel is archived', true)).toBe(true);
    expect(ids(await b.claimUndelivered({ now: NOW + 2 * MINUTE, instance: 'r2', leaseMs: MINUTE, limit: 100 }))).toEqual([first.id]);
  });

  it('sums up each rule of a channel over a window in one query: alerts, median time to acknowledge, noise, and whether it is noisy', async () => {
    const limits = { perChannel: 5, perWorkspace: 5 };
    const created = [
      await a.create(rule('C70', { workspaceId: 'T70' }), NOW, limits),
      await a.create(rule('C70', { workspaceId: 'T70' }), NOW, limits),
    ];
    const elsewhere = await a.create(rule('C71', { workspaceId: 'T70' }), NOW, limits);
    if (!created.every((c) => c.ok) || !elsewhere.ok) throw new Error('not created');
    const [busy, quiet] = created.map((c) => (c.ok ? c.rule : undefined)) as [AlertRule, AlertRule];
    await writeHistory(a, busy, [
      { openedAt: NOW - 40 * DAY, ackAfterMin: 100, reason: 'noise' },
      { openedAt: NOW - 10 * DAY, ackAfterMin: 2, reason: 'noise' },
      { openedAt: NOW - 5 * DAY, ackAfterMin: 8, reason: 'real' },
      { openedAt: NOW - 2 * DAY, reason: 'noise' },
    ]);
    await writeHistory(b, elsewhere.rule, [{ openedAt: NOW - DAY, reason: 'noise' }]);
    const month = { from: NOW - 30 * DAY, to: NOW };
    const stats = await b.ruleStats('slack', 'C70', month, { incidents: 3, share: 0.5 });
    expect([...stats.keys()].sort()).toEqual([busy.id, quiet.id].sort());
    expect(stats.get(busy.id)).toEqual({
      ruleId: busy.id,
      opened: 3,
      acknowledged: 2,
      medianAckSec: 300,
      reasoned: 3,
      noise: 2,
      noisy: true,
    });
    expect(stats.get(quiet.id)).toEqual({
      ruleId: quiet.id,
      opened: 0,
      acknowledged: 0,
      medianAckSec: null,
      reasoned: 0,
      noise: 0,
      noisy: false,
    });
    // Two of three is under a share of 70%; three alerts are under a floor of four.
    expect((await b.ruleStats('slack', 'C70', month, { incidents: 3, share: 0.7 })).get(busy.id)?.noisy).toBe(false);
    expect((await b.ruleStats('slack', 'C70', month, { incidents: 4, share: 0.5 })).get(busy.id)?.noisy).toBe(false);
    // A longer window takes the older alert in; a shorter one leaves all but the last out.
    expect((await b.ruleStats('slack', 'C70', { from: NOW - 90 * DAY, to: NOW }, { incidents: 3, share: 0.5 })).get(busy.id)).toMatchObject(
      {
        opened: 4,
        acknowledged: 3,
        medianAckSec: 480,
        noise: 3,
      },
    );
    expect((await b.ruleStats('slack', 'C70', { from: NOW - 3 * DAY, to: NOW }, { incidents: 3, share: 0.5 })).get(busy.id)).toMatchObject({
      opened: 1,
      acknowledged: 0,
      medianAckSec: null,
      reasoned: 1,
      noise: 1,
      noisy: false,
    });
  });

  it('keeps an open incident’s latest and worst values with each further crossing, one thread reply a cooldown and the message redrawn within it', async () => {
    const created = await a.create(rule('C70', { workspaceId: 'T70' }), NOW, { perChannel: 5, perWorkspace: 5 });
    if (!created.ok) throw new Error('not created');
    const rest = (at: number) => ({ source: 'rest' as const, fetchedAt: at, simulated: true });
    const change = (from: string, to: string, trend: 'worse' | 'better') => ({ holds: true, change: { from, to, trend } });
    const { incident } = await a.openIncident(created.rule.id, 'exchange', 'kraken', change('3.1%', '5.4%', 'worse'), NOW, {
      badness: 0.054,
      provenance: [rest(NOW)],
    });
    const here = () => a.incidentInChannel(incident.id, 'slack', 'C70');
    expect(await here()).toMatchObject({ latest: null, worst: { value: '5.4%', badness: 0.054 }, shown: { reading: [rest(NOW)] } });

    expect(
      await b.addFollowup(incident.id, change('5.4%', '7.0%', 'worse'), NOW + 5 * MINUTE, 3600, {
        badness: 0.07,
        provenance: [rest(NOW + 5 * MINUTE)],
      }),
    ).toBe(true);
    expect(await here()).toMatchObject({
      verdict: change('3.1%', '5.4%', 'worse'),
      latest: change('5.4%', '7.0%', 'worse'),
      worst: { value: '7.0%', badness: 0.07 },
      shown: { reading: [rest(NOW + 5 * MINUTE)] },
    });
    // Its message goes out; what follows it may be claimed from then on.
    expect((await a.claimUndelivered({ now: NOW, instance: 'r1', leaseMs: MINUTE, limit: 100 })).map((c) => c.incident.id)).toContain(
      incident.id,
    );
    expect(await a.delivered(incident.id, 'r1', '1763800000.000300')).toBe(true);
    const followups = async () =>
      (await a.db.query<{ kind: string }>('SELECT kind FROM alert_followups WHERE incident_id = $1 ORDER BY id', [incident.id])).map(
        (f) => f.kind,
      );
    const within = (replica: AlertStore, minutes: number, to: string, badness: number) =>
      replica.addFollowup(incident.id, change('7.0%', to, 'better'), NOW + minutes * MINUTE, 3600, {
        badness,
        provenance: [rest(NOW + minutes * MINUTE)],
      });
    // Within the cooldown, while the reply still waits: nothing more is queued, the reply's redraw
    // will show the latest value; the worst stays where it was.
    expect(await within(a, 10, '6.1%', 0.061)).toBe(false);
    expect(await here()).toMatchObject({ latest: change('7.0%', '6.1%', 'better'), worst: { value: '7.0%', badness: 0.07 } });
    expect(await followups()).toEqual(['again']);
    const [reply] = (await a.claimFollowups({ now: NOW + 11 * MINUTE, instance: 'r1', leaseMs: MINUTE, limit: 100 })).filter(
      (f) => f.incident.id === incident.id,
    );
    expect(reply).toMatchObject({ kind: 'again', message: { ref: '1763800000.000300', state: 'delivered' } });
    expect(await a.followupSettled(reply!.id, 'r1', 'done')).toBe(true);
    // Once it went out, later crossings within the cooldown queue one redraw between them, which
    // one of two replicas claiming at once takes.
    expect(await within(a, 12, '6.3%', 0.063)).toBe(false);
    expect(await within(b, 13, '6.4%', 0.064)).toBe(false);
    expect(await followups()).toEqual(['again', 'redraw']);
    expect(await here()).toMatchObject({ latest: change('7.0%', '6.4%', 'better'), shown: { reading: [rest(NOW + 13 * MINUTE)] } });
    const [x, y] = await Promise.all([
      a.claimFollowups({ now: NOW + 14 * MINUTE, instance: 'r1', leaseMs: MINUTE, limit: 100 }),
      b.claimFollowups({ now: NOW + 14 * MINUTE, instance: 'r2', leaseMs: MINUTE, limit: 100 }),
    ]);
    expect([...x, ...y].filter((f) => f.incident.id === incident.id).map((f) => f.kind)).toEqual(['redraw']);
  });

  it('writes an incident’s escalation steps when its message is delivered, hands each due step to one replica, counts the next from the one before, and stops the rest when acknowledged', async () => {
    const escalation = [
      { afterSec: 900, group: { id: 'S0ONCALL', label: '@risk-oncall' } },
      { afterSec: 3600, group: { id: 'S0HEAD', label: '@head-of-risk' } },
    ];
    const created = await a.create(rule('C40', { workspaceId: 'T40', notify: ['siem'], escalation }), NOW, {
      perChannel: 5,
      perWorkspace: 5,
    });
    if (!created.ok) throw new Error('not created');
    expect(created.rule.escalation).toEqual(escalation);
    const where = { platform: 'slack' as const, channelId: 'C40' };
    const { incident } = await a.openIncident(created.rule.id, 'exchange', 'kraken', { holds: true }, NOW);
    const steps = () => a.escalations(incident.id);
    const claim = (store: AlertStore, instance: string, minutes: number, leaseMin = 10) =>
      store.claimEscalations({ now: NOW + minutes * MINUTE, instance, leaseMs: leaseMin * MINUTE, limit: 100, platforms: ['slack'] });
    // Nothing to escalate before anyone could see the alert.
    expect(await steps()).toEqual([]);
    const ours = (await claimDeliveryFor(a, 'r1')).filter((c) => c.incident.id === incident.id);
    expect(ours).toHaveLength(1);
    expect(await a.delivered(incident.id, 'r1', '1763800000.000400', NOW + MINUTE)).toBe(true);
    expect((await steps()).map((e) => [e.step, e.group.label, e.afterSec, e.dueAt, e.state])).toEqual([
      [1, '@risk-oncall', 900, NOW + 16 * MINUTE, 'pending'],
      [2, '@head-of-risk', 3600, NOW + 76 * MINUTE, 'pending'],
    ]);

    // A minute early, nothing; then two replicas at once, and one of them takes the first step.
    expect(await claim(a, 'r1', 15)).toEqual([]);
    const [x, y] = await Promise.all([claim(a, 'r1', 16, 300), claim(b, 'r2', 16, 300)]);
    const [due, ...more] = [...x, ...y];
    expect(more).toEqual([]);
    expect(due).toMatchObject({ step: 1, steps: 2, group: escalation[0]!.group, afterSec: 900, sinceMessageSec: 900, attempts: 1 });
    expect(due!.incident).toMatchObject({ id: incident.id, status: 'open', messageRef: '1763800000.000400' });
    const [holder, other] = x.length ? ['r1', 'r2'] : ['r2', 'r1'];
    // The second waits for the first however late it is.
    expect(await claim(a, 'r3', 200)).toEqual([]);
    expect(await a.escalationFence(due!.id, other!, NOW + 17 * MINUTE, MINUTE)).toBe('lost');
    expect(await a.escalationFence(due!.id, holder!, NOW + 17 * MINUTE, MINUTE)).toBe('go');
    expect(await a.escalated(due!.id, other!, NOW + 17 * MINUTE)).toBe(false);
    expect(await a.escalated(due!.id, holder!, NOW + 17 * MINUTE)).toBe(true);
    // The next step is due its wait after the first was posted, and the destination hears of the first.
    expect((await steps()).map((e) => [e.state, e.dueAt, e.doneAt])).toEqual([
      ['done', NOW + 16 * MINUTE, NOW + 17 * MINUTE],
      ['pending', NOW + 77 * MINUTE, null],
    ]);
    const events = await a.db.query<{ destination: string; escalation: unknown }>(
      `SELECT destination, escalation FROM alert_events WHERE incident_id = $1 AND transition = 'escalated'`,
      [incident.id],
    );
    expect(events.map((e) => [e.destination, typeof e.escalation === 'string' ? JSON.parse(e.escalation) : e.escalation])).toEqual([
      ['siem', { step: 1, steps: 2, group: escalation[0]!.group, afterSec: 900 }],
    ]);
    expect((await a.message(incident.id))[0]!.incident.escalatedTo).toEqual(['@risk-oncall']);

    // Claimed, then acknowledged before it is posted: the fence says stopped, and nothing is left to claim.
    const [second] = await claim(b, 'r2', 78);
    expect(second).toMatchObject({ step: 2, sinceMessageSec: 4500 });
    await a.act(incident.id, where, { kind: 'acknowledge', by: 'Dana', byId: 'U0DANA' }, NOW + 78 * MINUTE);
    expect(await b.escalationFence(second!.id, 'r2', NOW + 78 * MINUTE, MINUTE)).toBe('stopped');
    expect(await b.escalated(second!.id, 'r2', NOW + 78 * MINUTE)).toBe(false);
    expect(await claim(a, 'r1', 600)).toEqual([]);
    expect((await steps()).map((e) => [e.state, e.reason])).toEqual([
      ['done', null],
      ['stopped', 'acknowledged'],
    ]);
  });

  async function claimDeliveryFor(store: AlertStore, instance: string) {
    return store.claimUndelivered({ now: NOW, instance, leaseMs: MINUTE, limit: 100 });
  }
});
