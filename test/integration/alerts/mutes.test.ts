import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertService } from '../../../src/alerts/service.js';
import { AlertStore } from '../../../src/alerts/store.js';
import type { Db } from '../../../src/db/connection.js';
import { migrate } from '../../../src/db/migrations.js';
import { DEFAULT_USER_ID } from '../../fakes/slack/identity.js';
import { ENGINES, testDatabase, type TestDatabase } from '../../helpers/digest/helpers.js';
import { simMove } from '../../helpers/sim.js';
import { blocksJson, headerOf, type Harness } from '../../helpers/slack/harness.js';
import { slackAlertsForFile } from '../../helpers/slack/alerts.js';

/**
 * Mutes, end to end in Slack through the real Bolt app and the fake Slack, the product's alert
 * service and deliverer, and the simulator moved over HTTP: a crossing under a mute is recorded
 * and not posted, its further crossings stay out of the thread, and when the mute ends (expired or
 * ended by hand) an incident that still holds is posted once, saying which mute held it. On both
 * database engines, replicas releasing held incidents at once release each one once.
 */

const file = slackAlertsForFile();
const { say } = file;
let h: Harness;
let db: Db;
let service: AlertService;
beforeAll(() => {
  ({ h, db, service } = file);
});

const topLevel = (channel: string) =>
  h.fake.calls('chat.postMessage').filter((c) => c.args.channel === channel && c.status === 200 && !c.args.thread_ts);
const replies = (channel: string) => h.fake.calls('chat.postMessage').filter((c) => c.args.channel === channel && c.args.thread_ts);
const alerts = (channel: string) => topLevel(channel).filter((c) => /Alert:|\d alerts:/.test(headerOf(c.args) ?? ''));

async function move(slug: string, pol: number): Promise<void> {
  await simMove(h.sim, { kind: 'exchange', slug, pol });
  h.core.upstream.source.cache.clear();
  await db.query('UPDATE alert_rules SET next_check = now()');
}

const pct = (p: number) => `${(p * 100).toFixed(1)}%`;
const incidentsOf = (rule: number) =>
  db.query<{ id: number; status: string; delivery_state: string }>(
    'SELECT id, status, delivery_state FROM alert_incidents WHERE rule_id = $1 ORDER BY id',
    [rule],
  );

describe('alert mutes in Slack', () => {
  it('records a crossing under a mute without posting it, and posts it once when the mute ends while it still holds', async () => {
    const channel = 'CMUTE0001';
    const from = h.sim.store.exchange('kraken')!.pol.at(-1)!;
    const added = await say(`alert add kraken when pol above ${pct(from + 0.02)} cooldown none`, channel);
    const rule = Number(/Alert rule #(\d+) added/.exec(added)![1]);
    await service.tick();

    const muted = await say('alert mute kraken 24h', channel);
    expect(muted).toMatch(/🔕 Muted Kraken until \d+ \w+ \d\d:\d\d UTC/);
    expect(muted).toContain('Crossings are recorded, not posted; if one still holds when the mute ends, one message says so.');
    expect(muted).toContain('"value":"alert unmute exchange:kraken"');
    const list = await say('alert list', channel);
    expect(list).toContain('Muted (crossings recorded, not posted)');
    expect(list).toMatch(/Kraken until \d+ \w+ \d\d:\d\d UTC, by/);

    await move('kraken', from + 0.04);
    expect(await service.tick()).toMatchObject({ posted: 0, check: { events: [{ type: 'opened' }] } });
    expect(alerts(channel)).toHaveLength(0);
    const [held] = await incidentsOf(rule);
    expect(held).toMatchObject({ status: 'open', delivery_state: 'muted' });
    // Worse again under the mute: recorded (the incident's latest and worst), still nothing posted.
    await move('kraken', from + 0.06);
    expect(await service.tick()).toMatchObject({ posted: 0, followups: 0 });
    expect(replies(channel)).toHaveLength(0);
    const catchup = await say('alert catchup', channel);
    expect(catchup).toContain('Held by a mute, not posted (1)');
    expect(catchup).toContain(`#${held!.id} Kraken`);

    // The mute runs out: the next tick posts the held incident, once, saying which mute held it.
    await db.query("UPDATE alert_mutes SET until = now() - interval '1 second' WHERE channel_id = $1", [channel]);
    expect(await service.tick()).toMatchObject({ released: 1, posted: 1 });
    expect(await service.tick()).toMatchObject({ released: 0, posted: 0 });
    expect(alerts(channel)).toHaveLength(1);
    const posted = blocksJson(alerts(channel)[0]!.args);
    expect(headerOf(alerts(channel)[0]!.args)).toBe('🔔 Alert: Kraken');
    expect(posted).toContain('Held back while Kraken was muted by');
    expect(posted).toContain('posted when the mute ended, as it still held');
    expect(posted).toContain(`now ${pct(from + 0.06)} · worst ${pct(from + 0.06)} · opened at ${pct(from + 0.04)}`);
    expect((await incidentsOf(rule))[0]!.delivery_state).toBe('delivered');
    // After the mute, a further crossing is a thread reply again.
    await move('kraken', from + 0.08);
    expect(await service.tick()).toMatchObject({ followups: 1 });
    expect(replies(channel)).toHaveLength(1);
  });

  it('keeps an incident that cleared under the mute out of the channel, and ends a mute by hand', async () => {
    const channel = 'CMUTE0002';
    const from = h.sim.store.exchange('okx')!.pol.at(-1)!;
    const added = await say(`alert add okx, bybit when pol above ${pct(from + 0.02)} cooldown none`, channel);
    const rule = Number(/Alert rule #(\d+) added/.exec(added)![1]);
    await service.tick();
    expect(await say(`alert mute rule ${rule} 2h`, channel)).toMatch(new RegExp(`🔕 Muted rule #${rule} until`));
    await move('okx', from + 0.04);
    await service.tick();
    await move('okx', from);
    await service.tick();
    expect((await incidentsOf(rule)).map((i) => [i.status, i.delivery_state])).toEqual([['cleared', 'muted']]);

    expect(await say(`alert unmute rule ${rule}`, channel)).toContain(`🔔 Unmuted rule #${rule}`);
    expect(await service.tick()).toMatchObject({ released: 0, posted: 0 });
    expect(alerts(channel)).toHaveLength(0);
    expect(await say('alert unmute all', channel)).toContain('Nothing is muted in this channel.');
  });

  it('refuses a mute it cannot keep, and changes nothing', async () => {
    const channel = 'CMUTE0003';
    await say('alert add uniswap when pol above 40%', channel);
    const before = await db.query('SELECT id FROM alert_mutes');
    expect(await say('alert mute uniswap 400d', channel)).toContain('A mute lasts 30 days at most.');
    expect(await say('alert mute uniswap 400 days', channel)).toContain('A mute lasts 30 days at most.');
    expect(await say('alert mute uniswap 2m', channel)).toContain('A mute lasts 5 minutes at least.');
    expect(await say('alert mute kraken 1h', channel)).toContain(
      'No alert rule in this channel watches Kraken, so there is nothing of it to mute.',
    );
    expect(await say('alert mute rule 999999 1h', channel)).toContain('There is no alert rule #999999 in this channel.');
    expect(await say('alert mute all 1h', 'CMUTENONE')).toContain('No alert rules in this channel yet');
    expect(await db.query('SELECT id FROM alert_mutes')).toEqual(before);
    // A second mute of the same thing replaces the first.
    await say('alert mute all 1h', channel);
    expect(await say('alert mute all 2h', channel)).toMatch(/replacing the mute until/);
    expect(await service.store.mutes.active('slack', channel, Date.now())).toHaveLength(1);
    expect(DEFAULT_USER_ID).toMatch(/^U/);
  });
});

describe.each(ENGINES)('held incidents released on %s', (engine) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await testDatabase(engine);
  });
  afterAll(async () => {
    await database?.dispose();
  });

  it('releases each held incident once however many replicas release at once', async () => {
    const [a, b] = [new AlertStore(await database.connect()), new AlertStore(await database.connect())];
    await migrate(a.db);
    const t0 = Date.parse('2026-11-20T09:00:00Z');
    const entities = ['binance', 'kraken', 'okx', 'bybit'].map((slug) => ({ kind: 'exchange' as const, slug, name: slug }));
    const created = await a.create(
      {
        platform: 'slack',
        workspaceId: null,
        channelId: 'CMUTEREPL',
        entities,
        condition: { kind: 'pol_above', threshold: 0.01 },
        conditionText: 'pol above 1%',
        everySec: 300,
        cooldownSec: 0,
        createdBy: 'U0MAKER01',
      },
      t0,
      { perChannel: 20, perWorkspace: 200 },
    );
    if (!created.ok) throw new Error('rule not created');
    const mute = await a.mutes.set(
      { platform: 'slack', channelId: 'CMUTEREPL', target: { scope: 'channel' }, until: t0 + 3_600_000, by: 'dana', byId: 'U0DANA001' },
      t0,
    );
    for (const e of entities) await a.openIncident(created.rule.id, 'exchange', e.slug, { holds: true }, t0 + 60_000);
    const held = await a.db.query<{ delivery_state: string; held: { muteId: number; by: string } }>(
      'SELECT delivery_state, held FROM alert_incidents WHERE rule_id = $1',
      [created.rule.id],
    );
    expect(held.map((r) => r.delivery_state)).toEqual(['muted', 'muted', 'muted', 'muted']);
    expect(held[0]!.held).toMatchObject({ muteId: mute!.mute.id, scope: 'channel', by: 'dana', byId: 'U0DANA001' });
    // Still under the mute: nothing to release.
    expect(await a.releaseHeld(t0 + 1_800_000)).toBe(0);
    const counts = await Promise.all([a.releaseHeld(t0 + 3_600_001), b.releaseHeld(t0 + 3_600_001), a.releaseHeld(t0 + 3_600_002)]);
    expect(counts.reduce((x, y) => x + y, 0)).toBe(4);
    const claimed = await Promise.all(
      [a, b].map((s, i) =>
        s.claimUndelivered({ now: t0 + 3_600_003, instance: `r${i}`, leaseMs: 60_000, limit: 10, platforms: ['slack'] }),
      ),
    );
    expect(claimed.flat()).toHaveLength(4);
  });
});
