import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackDeliverer } from '../../../adapters/slack/deliverer.js';
import { Outbox } from '../../../src/alerts/outbox.js';
import { AlertService } from '../../../src/alerts/service.js';
import { AlertStore } from '../../../src/alerts/store.js';
import { openPglite, type Db } from '../../../src/db/connection.js';
import { migrate } from '../../../src/db/migrations.js';
import { startFakePagerDuty, type FakePagerDuty } from '../../fakes/pagerduty/index.js';
import type { RecordedCall } from '../../fakes/slack/index.js';
import { startFakeWebhook, type FakeWebhook } from '../../fakes/webhook/index.js';
import { MINUTE } from '../../helpers/alerts.js';
import { secretWatch } from '../../helpers/secret-watch.js';
import { simMove } from '../../helpers/sim.js';
import { blocksJson, headerOf, quiesce, startHarness, tableRowsOf, type Harness } from '../../helpers/slack/harness.js';

/**
 * One incident's whole life, in Slack through the real Bolt app and the fake Slack, PagerDuty and
 * webhook receiver, with the product's service, outbox and deliverer: a high-severity rule that
 * escalates and notifies both destinations opens on the simulator's own values, posts in full,
 * pages PagerDuty as critical, escalates to the user group after 15 minutes, is acknowledged from
 * its button, resolved as noise from its menu, and `alert stats` counts it.
 */

const ROUTING_KEY = 'R0UT1NGKEY0F32CHARACTERSEXACTLY1';
const CHANNEL = 'CSTORY001';
const WAIT = 10_000;
let h: Harness;
let db: Db;
let pagerduty: FakePagerDuty;
let hook: FakeWebhook;
let service: AlertService;
/** The service's clock, moved on by the test: the escalation waits a quarter of an hour. */
let clock = Date.now();

beforeAll(async () => {
  [h, pagerduty, hook] = await Promise.all([startHarness(), startFakePagerDuty(), startFakeWebhook()]);
  secretWatch.secret(ROUTING_KEY, 'PagerDuty routing key');
  db = await openPglite();
  await migrate(db);
  const outbox = new Outbox({
    db,
    destinations: [
      { name: 'oncall', kind: 'pagerduty', routingKey: ROUTING_KEY, eventsUrl: pagerduty.eventsUrl },
      { name: 'siem', kind: 'webhook', url: hook.url, secret: hook.secret },
    ],
  });
  service = new AlertService({
    store: new AlertStore(db),
    deps: h.core.ctx,
    deliverers: [slackDeliverer(h.slack)],
    complete: h.core.complete,
    leaseMs: 60_000,
    now: () => clock,
    outbox,
  });
  h.core.ctx.alerts = service;
});
afterAll(async () => {
  await quiesce(h);
  await Promise.all([h.close(), pagerduty.close(), hook.close()]);
  await db.close();
});

const posts = () => h.fake.calls('chat.postMessage').filter((c) => c.args.channel === CHANNEL && c.status === 200);
const pct = (p: number) => `${(p * 100).toFixed(1)}%`;
type Block = {
  type: string;
  elements?: {
    type: string;
    action_id: string;
    value?: string;
    text?: { text: string };
    options?: { text: { text: string }; value: string }[];
    placeholder?: { text: string };
  }[];
};
const elements = (c: RecordedCall) =>
  ((c.args.blocks ?? []) as Block[]).filter((b) => b.type === 'actions').flatMap((b) => b.elements ?? []);

async function say(text: string): Promise<RecordedCall> {
  const seen = new Set(h.fake.calls('chat.postMessage'));
  await h.command(h.fake.asTyped(text), { channel: CHANNEL });
  return h.fake.waitFor('chat.postMessage', (c) => !seen.has(c) && c.args.channel === CHANNEL, WAIT);
}

/** Ticks the service at its clock until the outbox has nothing left to send (or ten ticks). */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) {
    const t = await service.tick();
    if (!t.outbound || t.outbound.sent + t.outbound.retried === 0) return;
  }
}

describe('an alert from opening to the stats', () => {
  it('opens, pages, escalates, is acknowledged, resolved as noise, and counted', async () => {
    const oncall = h.fake.addUserGroup('risk-oncall');
    const start = h.sim.store.exchange('kraken')!.pol.at(-1)!;
    const line = Math.round((start + 0.02) * 1000) / 10;
    const added = await say(
      `alert add kraken when pol above ${line}% severity high escalate after 15m to @risk-oncall notify oncall, siem`,
    );
    const ruleId = Number(/Alert rule #(\d+) added/.exec(headerOf(added.args) ?? '')![1]);
    expect(await service.store.getInChannel(ruleId, 'slack', CHANNEL)).toMatchObject({
      severity: 'high',
      notify: ['oncall', 'siem'],
      escalation: [{ afterSec: 900, group: { id: oncall, label: '@risk-oncall' } }],
    });
    // Its first check records where Kraken stands, below the line. The service's clock starts half
    // an hour back, so that after the escalation's wait the story still lies in the past of the
    // stats, which count up to now.
    clock = Date.now() - 30 * MINUTE;
    await db.query('UPDATE alert_rules SET next_check = $1', [new Date(clock)]);
    expect((await service.tick()).check.rules).toBe(1);

    // The simulator moves Kraken four points up: the incident opens, in full with its chart.
    const to = start + 0.04;
    await simMove(h.sim, { kind: 'exchange', slug: 'kraken', pol: to });
    h.core.upstream.source.cache.clear();
    await db.query('UPDATE alert_rules SET next_check = $1', [new Date(clock)]);
    clock += 1_000;
    expect(await service.tick()).toMatchObject({ posted: 1 });
    const message = posts().find((c) => headerOf(c.args) === '🔔 Alert: Kraken')!;
    expect(message).toBeDefined();
    expect(blocksJson(message.args)).toContain(pct(to));
    expect(((message.args.blocks ?? []) as Block[]).some((b) => b.type === 'image')).toBe(true);
    const ts = (message.response as { ts: string }).ts;
    const [incident] = await db.query<{ id: number }>('SELECT id FROM alert_incidents WHERE rule_id = $1', [ruleId]);
    const dedupKey = `polbot-incident-${incident!.id}`;
    await settle();
    expect(pagerduty.incidents({ dedupKey })[0]).toMatchObject({
      status: 'triggered',
      payload: { severity: 'critical', summary: `Kraken: pol above ${line}% (${pct(start)} → ${pct(to)})`, component: 'exchange:kraken' },
    });

    // A quarter of an hour unacknowledged: one reply in the thread calls on the group.
    clock += 15 * MINUTE;
    await service.tick();
    const replies = posts().filter((c) => c.args.thread_ts === ts);
    expect(replies).toHaveLength(1);
    expect(String(replies[0]!.args.text)).toContain(`<!subteam^${oncall}>`);

    // Acknowledged from its button, then resolved as noise from its menu.
    const ack = elements(message).find((e) => e.type === 'button' && e.text?.text === 'Acknowledge')!;
    await h.click(ack.action_id, ack.value!, { channel: CHANNEL, messageTs: ts });
    await h.fake.waitFor('chat.update', (c) => c.args.ts === ts && blocksJson(c.args).includes('Acknowledged by'), WAIT);
    clock += MINUTE;
    const menu = elements(message).find((e) => e.type === 'static_select' && e.placeholder?.text === 'Resolve as…')!;
    const noise = menu.options!.find((o) => o.text.text === 'Noise')!;
    await h.pick(menu.action_id, { text: 'Noise', value: noise.value }, { channel: CHANNEL, messageTs: ts });
    await h.fake.waitFor('chat.update', (c) => c.args.ts === ts && blocksJson(c.args).includes('Resolved as noise'), WAIT);
    await settle();

    expect(pagerduty.incidents({ dedupKey })[0]!.log.map((l) => l.action)).toEqual(['trigger', 'acknowledge', 'resolve']);
    expect(pagerduty.incidents({ dedupKey })[0]!.status).toBe('resolved');
    const events = hook.events().map((e) => JSON.parse(e.raw) as { type: string; incident: { id: number }; reason?: string });
    expect(events.filter((e) => e.incident.id === incident!.id).map((e) => e.type)).toEqual([
      'incident.opened',
      'incident.escalated',
      'incident.acknowledged',
      'incident.resolved',
    ]);
    expect(hook.events().every((e) => e.deliveries === 1)).toBe(true);
    expect(events.find((e) => e.type === 'incident.resolved')).toMatchObject({
      incident: { id: incident!.id, status: 'resolved', reason: 'noise' },
    });

    // The stats count it: one alert, acknowledged after 15 minutes, resolved as noise.
    const stats = tableRowsOf((await say('alert stats')).args.blocks)!;
    expect(stats.find((r) => r[0] === String(ruleId))).toEqual([
      String(ruleId),
      'Kraken',
      `pol above ${line}%`,
      '1',
      expect.stringMatching(/^1[56] min$/),
      '100% of 1',
      '—',
    ]);
  });
});
