import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackDeliverer } from '../../../adapters/slack/deliverer.js';
import { startSlack, type SlackAdapter } from '../../../adapters/slack/index.js';
import { alertKey } from '../../../src/alerts/key.js';
import { carriesKey } from '../../../src/delivery/port.js';
import { AlertService, type AlertTick } from '../../../src/alerts/service.js';
import { AlertStore } from '../../../src/alerts/store.js';
import type { EntityRef } from '../../../src/api/domain.js';
import { openPglite, type Db } from '../../../src/db/connection.js';
import { migrate } from '../../../src/db/migrations.js';
import { createLogger } from '../../../src/log.js';
import { startHoldProxy, slackPost, type HoldProxy } from '../../helpers/digest/hold-proxy.js';
import { ManualClock } from '../../helpers/digest/helpers.js';
import { LogCapture, SIGNING_SECRET, startHarness, type Harness } from '../../helpers/slack/harness.js';

/**
 * How a replica taking an alert's delivery over finds the message its predecessor left in the
 * channel, in one process: replica A posts through a hold proxy that lets the post reach the fake
 * Slack and loses the answer (A is as good as dead), replica B goes through the same adapter code
 * straight to the fake. The clock is the test's, so leases lapse when it says.
 */

const LEASE = 600_000;
const C1 = 'C-RECOVER-1';
const C2 = 'C-RECOVER-2';

let h: Harness;
let proxy: HoldProxy;
let held: SlackAdapter;
let db: Db;
let store: AlertStore;
const clock = ManualClock.at('2026-11-20T09:00:00Z');
let a: AlertService;
let b: AlertService;

beforeAll(async () => {
  h = await startHarness();
  proxy = await startHoldProxy(h.fake.origin, slackPost);
  held = await startSlack({
    core: h.core,
    slack: { botToken: h.fake.botToken, apiUrl: `${proxy.origin}/api/`, signingSecret: SIGNING_SECRET },
    http: { host: '127.0.0.1', port: 0 },
    log: createLogger({ level: 'warn', destination: new LogCapture() }),
  });
  db = await openPglite();
  await migrate(db);
  store = new AlertStore(db);
  const replica = (instanceId: string, adapter: SlackAdapter) =>
    new AlertService({
      store,
      deps: h.core.ctx,
      deliverers: [slackDeliverer(adapter)],
      complete: h.core.complete,
      now: clock.now,
      leaseMs: LEASE,
      instanceId,
    });
  a = replica('A', held);
  b = replica('B', h.slack);
});
afterAll(async () => {
  await proxy.close();
  await held.stop();
  await h.close();
  await db.close();
});

const exchange = (slug: string, name: string): EntityRef => ({ kind: 'exchange', slug, name });

/** A rule due now: "PoL above 1%", which the simulator's exchanges below all cross. */
async function addRule(channelId: string, entities: EntityRef[]): Promise<number> {
  const r = await store.create(
    {
      platform: 'slack',
      workspaceId: 'T-RECOVER',
      channelId,
      entities,
      condition: { kind: 'pol_above', threshold: 0.01 },
      conditionText: 'pol above 1%',
      everySec: 3_600,
      cooldownSec: 0,
      createdBy: 'U1',
    },
    clock.now(),
    { perChannel: 20, perWorkspace: 200 },
  );
  if (!r.ok) throw new Error(r.reason);
  return r.rule.id;
}

const messages = (channel: string) => h.fake.calls('chat.postMessage').filter((c) => c.args.channel === channel && !c.args.thread_ts);
const histories = (channel: string) => h.fake.calls('conversations.history').filter((c) => c.args.channel === channel);
const counts = (r: AlertTick) => ({ rules: r.check.rules, posted: r.posted, confirmed: r.confirmed, failed: r.failed, lost: r.lost });

async function incidents(channel: string) {
  return db.query<{
    id: number;
    delivery_state: string;
    delivery_attempts: number;
    delivery_by: string;
    message_ref: string | null;
    lead_id: number | null;
  }>(
    `SELECT i.id, i.delivery_state, i.delivery_attempts, i.delivery_by, i.message_ref, i.lead_id FROM alert_incidents i JOIN alert_rules r ON r.id = i.rule_id
      WHERE r.channel_id = $1 ORDER BY i.id`,
    [channel],
  );
}

describe('taking an alert delivery over', () => {
  it('finds the message that landed, after a search that failed posted nothing; a new incident of the channel gets its own message', async () => {
    await addRule(C1, [exchange('okx', 'OKX'), exchange('bybit', 'Bybit')]);
    proxy.hold.set(C1, 'response');
    // A checks, opens two incidents sharing one message, and posts it; Slack takes it, the answer never comes.
    const stuck = a.tick().catch(() => undefined);
    const landed = await h.fake.waitFor('chat.postMessage', (c) => c.args.channel === C1, 20_000);
    const ts = (landed.response as { ts: string }).ts;
    const [lead, member] = await incidents(C1);
    expect([lead, member].map((i) => ({ state: i!.delivery_state, by: i!.delivery_by, lead: i!.lead_id, ref: i!.message_ref }))).toEqual([
      { state: 'claimed', by: 'A', lead: null, ref: null },
      { state: 'claimed', by: 'A', lead: lead!.id, ref: null },
    ]);
    expect(carriesKey(JSON.stringify(landed.args), alertKey(lead!.id))).toBe(true);

    // Meanwhile another rule of the channel crosses; A's lease lapses.
    await addRule(C1, [exchange('kucoin', 'KuCoin')]);
    clock.advance(LEASE + 1_000);
    // B opens the new incident and claims all three, but cannot read the channel: nothing is posted.
    h.fake.failNext('conversations.history', { error: 'internal_error' });
    expect(counts(await b.tick())).toEqual({ rules: 1, posted: 0, confirmed: 0, failed: 0, lost: 0 });
    expect(messages(C1)).toHaveLength(1);
    expect((await incidents(C1)).map((i) => [i.delivery_state, i.delivery_by, i.delivery_attempts])).toEqual([
      ['claimed', 'B', 2],
      ['claimed', 'B', 2],
      ['claimed', 'B', 1],
    ]);

    // After its own lease, B reads the channel: A's message is there and is recorded; the new one is posted.
    clock.advance(LEASE + 1_000);
    expect(counts(await b.tick())).toEqual({ rules: 0, posted: 1, confirmed: 1, failed: 0, lost: 0 });
    expect(messages(C1)).toHaveLength(2);
    const fresh = messages(C1)[1]!;
    const freshTs = (fresh.response as { ts: string }).ts;
    const [, , third] = await incidents(C1);
    expect(carriesKey(JSON.stringify(fresh.args), alertKey(third!.id))).toBe(true);
    expect(carriesKey(JSON.stringify(fresh.args), alertKey(lead!.id))).toBe(false);
    expect(
      (await incidents(C1)).map((i) => ({
        state: i.delivery_state,
        by: i.delivery_by,
        attempts: i.delivery_attempts,
        ref: i.message_ref,
        lead: i.lead_id,
      })),
    ).toEqual([
      { state: 'delivered', by: 'B', attempts: 3, ref: ts, lead: null },
      { state: 'delivered', by: 'B', attempts: 3, ref: ts, lead: lead!.id },
      { state: 'delivered', by: 'B', attempts: 2, ref: freshTs, lead: null },
    ]);
    // One failed search, then one per message that could be there.
    expect(histories(C1)).toHaveLength(3);

    // A's answer finally fails (the proxy goes): its late record matches nothing.
    await proxy.close();
    await stuck;
    expect((await incidents(C1)).every((i) => i.delivery_by === 'B' && i.delivery_state === 'delivered')).toBe(true);
    expect(messages(C1)).toHaveLength(2);
  });

  it('sends a post once when Slack answers 500, and posts it once more only after searching the channel', async () => {
    await addRule(C2, [exchange('gate-io', 'Gate.io')]);
    // A 500 may come after Slack took the message: the adapter does not repeat the request itself.
    h.fake.failNext('chat.postMessage', { status: 500, error: 'internal_error' });
    expect(counts(await b.tick())).toEqual({ rules: 1, posted: 0, confirmed: 0, failed: 0, lost: 0 });
    expect(messages(C2)).toHaveLength(1);
    expect(histories(C2)).toHaveLength(0);

    clock.advance(LEASE + 1_000);
    expect(counts(await b.tick())).toEqual({ rules: 0, posted: 1, confirmed: 0, failed: 0, lost: 0 });
    expect(histories(C2)).toHaveLength(1);
    expect(messages(C2)).toHaveLength(2);
    const [incident] = await incidents(C2);
    expect(incident).toMatchObject({
      delivery_state: 'delivered',
      delivery_attempts: 2,
      message_ref: (messages(C2)[1]!.response as { ts: string }).ts,
    });
  });

  it('reads a key as a whole: alert #1 is not found in the message of alert #12', () => {
    const message = JSON.stringify({ blocks: [{ type: 'context', elements: [{ type: 'mrkdwn', text: 'polbot alert #12' }] }] });
    expect(carriesKey(message, alertKey(12))).toBe(true);
    expect(carriesKey(message, alertKey(1))).toBe(false);
    expect(carriesKey(`${message} polbot alert #1 · as of`, alertKey(1))).toBe(true);
  });
});
