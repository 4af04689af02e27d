import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertStore } from '../../../src/alerts/store.js';
import type { EntityRef } from '../../../src/api/domain.js';
import type { Db } from '../../../src/db/connection.js';
import { migrate } from '../../../src/db/migrations.js';
import type { Simulator } from '../../../src/sim/server.js';
import { startFakePagerDuty, type FakePagerDuty } from '../../fakes/pagerduty/index.js';
import { startFakeWebhook, type FakeWebhook } from '../../fakes/webhook/index.js';
import { addRule } from '../../helpers/alerts.js';
import { killLeftovers, replicaDatabase, startWorker, ticks, until, type Worker } from '../../helpers/replica.js';
import { secretWatch } from '../../helpers/secret-watch.js';
import { simMove, startTestSimulator } from '../../helpers/sim.js';

/**
 * Events for the destinations outside chat (PagerDuty's Events API v2 and a signed webhook)
 * delivered exactly once by replicas on PostgreSQL, one of them killed with SIGKILL while its
 * sends are on the wire. Each replica is a process of its own (worker-script.ts: the real
 * AlertService with the Outbox built from POLBOT_DESTINATIONS, as `polbot start` builds it; no
 * chat platform, whose crash test is crash.test.ts), reading one simulator moved with
 * `POST /_sim/move`. The first replica checks the rules, opens an incident per rule and sends a
 * trigger and an `incident.opened` per incident; the fakes hold every one of those sends open. A
 * person acknowledges two incidents meanwhile. The first replica is killed: of the sends it held,
 * half had reached the receiver (it acts on them once their sender is gone: only the answer was
 * lost), half never had. The second replica, alongside from before the kill, takes the events over
 * once their leases lapse, and sends what the people then do (acknowledge the rest, resolve all).
 *
 * What "exactly once" means here. A sender cannot know whether a send whose answer never came
 * was received, so the survivor sends it again, with the same event id (webhooks) or the same
 * dedup_key and action (PagerDuty): delivery is at least once on the wire. Each receiver acts on
 * an event once: the webhook receiver answers a repeated id with the same body as a duplicate
 * without accepting it again, and PagerDuty folds a repeated trigger into the incident its
 * dedup_key opened. So each event is asserted accepted exactly once as its receiver accepts it,
 * and the raw requests are counted as well: one more for each send that landed without its
 * answer, and one for each that was lost on the way (and sent afresh). What PagerDuty ends with
 * also shows the order: an acknowledge that reached it before its trigger would be dropped
 * there, so each incident's log is asserted whole.
 */

/** Short leases keep the takeover within seconds; the first replica is killed well inside one. */
const LEASE = 5_000;
const TICK = 200;
const ROUTING_KEY = 'R0UT1NGKEYF0RTHEKILLEDREPL1CA032';
const CHANNEL = 'C-OUTBOUND-KILL';

const exchange = (slug: string, name: string): EntityRef => ({ kind: 'exchange', slug, name });
/** Each watched by a rule `pol above 5%` (addRule's), moved above it before the first check; `shown` is how an alert's words give it. */
const WATCHED: { entity: EntityRef; pol: number; shown: string }[] = [
  { entity: exchange('okx', 'OKX'), pol: 0.052, shown: '5.2%' },
  { entity: exchange('bybit', 'Bybit'), pol: 0.064, shown: '6.4%' },
  { entity: exchange('kucoin', 'KuCoin'), pol: 0.071, shown: '7.1%' },
  { entity: exchange('gate-io', 'Gate.io'), pol: 0.128, shown: '12.8%' },
];

interface TickLine {
  outbound?: { sent: number; retried: number; failed: number; lost: number };
  opened: number;
}
const sent = (w: Worker, key: 'sent' | 'retried' | 'failed' | 'lost') =>
  ticks<TickLine>(w).reduce((n, t) => n + (t.outbound?.[key] ?? 0), 0);

interface EventRow {
  id: number;
  incident_id: number;
  destination: string;
  transition: string;
  state: string;
  attempts: number;
  claimed_by: string;
}

describe('outbound alert events from replicas, one killed with SIGKILL mid-send, on PostgreSQL', () => {
  let sim: Simulator;
  let pagerduty: FakePagerDuty;
  let hook: FakeWebhook;
  let database: Record<string, string>;
  let cleanup: () => Promise<void>;
  let open: () => Promise<Db>;
  let db: Db;
  let store: AlertStore;

  beforeAll(async () => {
    [sim, pagerduty, hook] = await Promise.all([startTestSimulator(), startFakePagerDuty(), startFakeWebhook()]);
    secretWatch.secret(ROUTING_KEY, 'PagerDuty routing key');
    for (const { entity, pol } of WATCHED) await simMove(sim, { kind: entity.kind, slug: entity.slug, pol });
    ({ env: database, open, cleanup } = await replicaDatabase('postgres', 'polbot-outbound-crash-'));
    db = await open();
    await migrate(db);
    store = new AlertStore(db);
    // Due at once: the first replica's first tick checks them all.
    const now = Date.now() - 1_000;
    for (const { entity } of WATCHED)
      await addRule(store, { channelId: CHANNEL, entities: [entity], everySec: 3_600, notify: ['oncall', 'siem'] }, now);
  });

  afterAll(async () => {
    // Only after a failure is one still running.
    killLeftovers();
    await db?.close();
    await Promise.all([pagerduty?.close(), hook?.close(), sim?.close()]);
    await cleanup?.();
  });

  const workerEnv = (): Record<string, string> => ({
    ...database,
    POL_API_BASE_URL: sim.url,
    POL_API_KEY: sim.apiKey,
    POL_TIMEOUT_MS: '3000',
    POLBOT_DESTINATIONS: `oncall=pagerduty:${ROUTING_KEY},siem=webhook:${hook.url}`,
    POLBOT_WEBHOOK_SECRET_SIEM: hook.secret,
    PAGERDUTY_EVENTS_URL: pagerduty.eventsUrl,
    ALERT_WORKER_LEASE: String(LEASE),
    ALERT_WORKER_TICK: String(TICK),
  });

  const events = () =>
    db.query<EventRow>('SELECT id, incident_id, destination, transition, state, attempts, claimed_by FROM alert_events ORDER BY id');
  const act = async (incident: number, step: { kind: 'acknowledge' } | { kind: 'resolve'; reason: 'real' }) => {
    const moved = await store.act(incident, { platform: 'slack', channelId: CHANNEL }, { ...step, by: 'U-ONCALL' }, Date.now());
    expect(moved?.id, `incident #${incident}`).toBe(incident);
  };

  it('sends every trigger, acknowledge and resolve, and every webhook event, once as each receiver accepts it', async () => {
    // Every send of the first replica is held: per receiver, two reach it and lose their answer,
    // two are lost on the way, in whichever order they arrive.
    for (const fake of [pagerduty, hook]) {
      fake.holdNext({ lose: 'response', times: 2 });
      fake.holdNext({ lose: 'request', times: 2 });
    }
    const a = startWorker('test/e2e/alerts/worker-script.ts', 'alert worker', workerEnv());
    const b = startWorker('test/e2e/alerts/worker-script.ts', 'alert worker', workerEnv());
    await Promise.all([a, b].map((w) => w.line((l) => l === 'ready', 60_000)));
    const t0 = Date.now();
    a.go();
    await Promise.race([
      until('the first replica to have its eight sends held', () => pagerduty.held() === 4 && hook.held() === 4, 20_000),
      a.exited.then((e) => Promise.reject(new Error(`worker exited early (${JSON.stringify(e)}): ${a.logs.join('\n')}`))),
    ]);
    const incidents = (await db.query<{ id: number; slug: string }>('SELECT id, slug FROM alert_incidents ORDER BY id')).map((r) => ({
      id: Number(r.id),
      slug: r.slug,
    }));
    // Opened together, in whichever order the checker's reads came back.
    expect(incidents.map((i) => i.slug).sort()).toEqual(WATCHED.map((w) => w.entity.slug).sort());
    // Acknowledged while the triggers are still on the wire: their events wait behind the triggers.
    const [first, second, third, fourth] = incidents.map((i) => i.id) as [number, number, number, number];
    await act(first, { kind: 'acknowledge' });
    await act(second, { kind: 'acknowledge' });
    // The second replica ticks alongside, within the first one's leases: it takes nothing, and
    // sends no acknowledge ahead of the trigger it follows.
    b.go();
    await new Promise((r) => setTimeout(r, 1_000));
    expect(b.lines).toEqual(['ready']);
    expect(a.lines).toEqual(['ready']);
    expect(pagerduty.calls()).toEqual([]);
    expect(hook.calls()).toEqual([]);

    expect(Date.now() - t0).toBeLessThan(LEASE);
    expect(a.child.kill('SIGKILL')).toBe(true);
    expect(await a.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // The held sends end with their sender: half processed, half never seen.
    await until('the held sends to settle', () => pagerduty.calls().length === 4 && hook.calls().length === 4, 10_000);
    expect([pagerduty.held(), hook.held()]).toEqual([0, 0]);
    const landedPd = pagerduty.calls().filter((c) => c.status === 202);
    const landedHook = hook.calls().filter((c) => c.status === 200);
    for (const fake of [pagerduty, hook]) expect(fake.calls().every((c) => c.fault === 'hold' && c.abandoned)).toBe(true);
    expect([landedPd.length, landedHook.length]).toEqual([2, 2]);
    expect(pagerduty.incidents()).toHaveLength(2);
    expect(hook.events()).toHaveLength(2);

    // The survivor takes the triggers and webhook events over when their leases lapse, then the
    // acknowledgements that waited behind them.
    const settled = async (n: number) => {
      const rows = await events();
      return rows.length === n && rows.every((r) => r.state === 'done');
    };
    await until('the survivor to send the first twelve events', () => settled(12), 20_000);
    await act(third, { kind: 'acknowledge' });
    await act(fourth, { kind: 'acknowledge' });
    for (const id of incidents.map((i) => i.id)) await act(id, { kind: 'resolve', reason: 'real' });
    await until('the survivor to send all twenty-four events', () => settled(24), 15_000);
    expect(b.child.kill('SIGTERM')).toBe(true);
    expect(await b.exited).toEqual({ code: 0, signal: null });
    expect({ sent: sent(b, 'sent'), retried: sent(b, 'retried'), failed: sent(b, 'failed'), lost: sent(b, 'lost') }).toEqual({
      sent: 24,
      retried: 0,
      failed: 0,
      lost: 0,
    });
    expect(ticks<TickLine>(b).reduce((n, t) => n + t.opened, 0)).toBe(0);

    // PagerDuty: one incident per polbot incident, opened by its trigger, acknowledged, resolved,
    // each action acted on once; a trigger that landed without its answer came again and was
    // folded into the incident it had opened.
    const dedupKey = (id: number) => `polbot-incident-${id}`;
    const landedKeys = new Set(landedPd.map((c) => (c.json as { dedup_key: string }).dedup_key));
    expect(pagerduty.incidents().map((i) => i.dedupKey)).toEqual(expect.arrayContaining(incidents.map((i) => dedupKey(i.id))));
    expect(pagerduty.incidents()).toHaveLength(4);
    for (const { id, slug } of incidents) {
      const [incident, ...more] = pagerduty.incidents({ routingKey: ROUTING_KEY, dedupKey: dedupKey(id) });
      expect(more).toEqual([]);
      const { entity, shown } = WATCHED.find((w) => w.entity.slug === slug)!;
      expect(incident!.payload).toMatchObject({
        // The first check has nothing before it to compare with.
        summary: `${entity.name}: pol above 5% (— → ${shown})`,
        source: 'polbot',
        severity: 'warning',
        component: `exchange:${entity.slug}`,
      });
      expect(incident!.status, dedupKey(id)).toBe('resolved');
      expect(
        incident!.log.map((l) => `${l.action}:${l.outcome}`),
        dedupKey(id),
      ).toEqual([
        'trigger:opened',
        ...(landedKeys.has(dedupKey(id)) ? ['trigger:deduplicated'] : []),
        'acknowledge:acknowledged',
        'resolve:resolved',
      ]);
    }
    // Every request PagerDuty got: the four held (two processed, two lost), the four triggers
    // sent again, four acknowledgements and four resolves.
    const pdRequests = pagerduty.calls().map((c) => {
      const body = c.json as { dedup_key: string; event_action: string };
      return `${body.dedup_key} ${body.event_action} ${c.status}`;
    });
    expect(pdRequests).toHaveLength(16);
    expect(pdRequests.filter((r) => r.endsWith(' 0'))).toHaveLength(2);
    for (const { id } of incidents) {
      const mine = pdRequests.filter((r) => r.startsWith(`${dedupKey(id)} `)).sort();
      expect(mine, dedupKey(id)).toEqual(
        [
          `${dedupKey(id)} acknowledge 202`,
          `${dedupKey(id)} resolve 202`,
          `${dedupKey(id)} trigger 202`,
          `${dedupKey(id)} trigger ${landedKeys.has(dedupKey(id)) ? 202 : 0}`,
        ].sort(),
      );
    }

    // The webhook: twelve events accepted, each id once, in order per incident; the two that
    // landed without their answer were delivered twice and accepted once.
    const rows = await events();
    const hookRows = rows.filter((r) => r.destination === 'siem');
    const accepted = hook.events();
    expect(accepted.map((e) => e.id).sort()).toEqual(hookRows.map((r) => `polbot-evt-${r.id}`).sort());
    const landedIds = new Set(landedHook.map((c) => c.headers['x-polbot-event-id']));
    for (const e of accepted) expect(e.deliveries, e.id).toBe(landedIds.has(e.id) ? 2 : 1);
    for (const { id } of incidents)
      expect(
        accepted.filter((e) => e.event.incident.id === id).map((e) => e.type),
        `incident #${id}`,
      ).toEqual(['incident.opened', 'incident.acknowledged', 'incident.resolved']);
    const hookRequests = hook.calls();
    expect(hookRequests).toHaveLength(16);
    expect(hookRequests.filter((c) => c.status === 0)).toHaveLength(2);
    expect(hookRequests.filter((c) => c.status === 200)).toHaveLength(14);

    // The store: every event done; the openings claimed twice (the killed replica, then the
    // survivor), the rest once, all finished by the survivor.
    expect(rows).toHaveLength(24);
    expect(rows.map((r) => ({ state: r.state, attempts: r.attempts, by: r.claimed_by }))).toEqual(
      rows.map((r) => ({ state: 'done', attempts: r.transition === 'opened' ? 2 : 1, by: `worker-${b.child.pid}` })),
    );
  }, 90_000);
});
