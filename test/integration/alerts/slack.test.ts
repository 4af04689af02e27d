import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { slackDeliverer } from '../../../adapters/slack/deliverer.js';
import { AlertService, type AlertServiceOptions } from '../../../src/alerts/service.js';
import { AlertStore } from '../../../src/alerts/store.js';
import { openPglite, type Db } from '../../../src/db/connection.js';
import { migrate, MIGRATIONS } from '../../../src/db/migrations.js';
import type { RecordedCall } from '../../fakes/slack/index.js';
import { DEFAULT_USER_ID } from '../../fakes/slack/identity.js';
import { simMove } from '../../helpers/sim.js';
import { blocksJson, footerLineOf, headerOf, quiesce, startHarness, type Harness } from '../../helpers/slack/harness.js';

/**
 * Alerts end to end in Slack: the real Bolt app against the fake Slack, the product's alert
 * service and deliverer, a PGlite store, and the simulator moved over its admin route. A rule is
 * added by slash command; a crossing posts exactly one message; its buttons (clicked as signed
 * block_actions) redraw that same message with chat.update, naming people as mentions and keeping
 * the footer of the data it shows; a further crossing lands in its thread and moves the message's
 * latest and worst values; a level that falls back closes the incident by itself. An incident
 * opened before schema version 7 is still redrawn truthfully after the upgrade.
 */

const CHANNEL = 'CALERTS01';
/** How long to wait for the fake Slack to see a request: generous, for a loaded machine. */
const WAIT = 10_000;
let h: Harness;
let db: Db;
let service: AlertService;

/** An alert service on `store` that posts through the Slack adapter under test. */
const serviceOn = (store: AlertStore, options: Partial<AlertServiceOptions> = {}) =>
  new AlertService({ store, deps: h.core.ctx, deliverers: [slackDeliverer(h.slack)], complete: h.core.complete, ...options });

beforeAll(async () => {
  h = await startHarness();
  db = await openPglite();
  await migrate(db);
  service = serviceOn(new AlertStore(db), { leaseMs: 60_000 });
  h.core.ctx.alerts = service;
});
afterAll(async () => {
  await quiesce(h);
  await h.close();
  await db.close();
});

/** Moves the simulator as the upstream would move, over HTTP, and makes every rule due now. */
async function move(body: Record<string, unknown>): Promise<void> {
  await simMove(h.sim, body);
  h.core.upstream.source.cache.clear();
  await db.query('UPDATE alert_rules SET next_check = now()');
}

const posts = (channel: string) => h.fake.calls('chat.postMessage').filter((c) => c.args.channel === channel && c.status === 200);
const topLevel = (channel: string) => posts(channel).filter((c) => !c.args.thread_ts);
const alertMessages = (channel: string) => topLevel(channel).filter((c) => /Alert:|\d alerts:/.test(headerOf(c.args) ?? ''));
const updatesOf = (ts: string) => h.fake.calls('chat.update').filter((c) => c.args.ts === ts);

interface Button {
  action_id: string;
  value: string;
  text: { text: string };
}
function buttons(call: RecordedCall): Button[] {
  const blocks = (call.args.blocks ?? []) as { type: string; elements?: Button[] }[];
  return blocks.filter((b) => b.type === 'actions').flatMap((b) => b.elements ?? []);
}

const footerOf = (call: RecordedCall): string => footerLineOf(call.args);

/**
 * Runs `work` with the clock four minutes on and the cache emptied, so that anything drawn from
 * data fetched now says a later as-of time than the data fetched when the message was posted.
 * Four minutes keeps a signed click within the five minutes Slack's signatures allow.
 */
async function later<T>(work: () => Promise<T>): Promise<T> {
  const real = Date.now;
  const clock = vi.spyOn(Date, 'now').mockImplementation(() => real.call(Date) + 4 * 60_000);
  h.core.upstream.source.cache.clear();
  try {
    return await work();
  } finally {
    clock.mockRestore();
  }
}

async function click(message: RecordedCall, label: string, ts: string, channel = CHANNEL): Promise<RecordedCall> {
  const before = updatesOf(ts).length;
  const button = buttons(updatesOf(ts).at(-1) ?? message).find((b) => b.text.text === label);
  expect(button, `no ${label} button`).toBeDefined();
  await h.click(button!.action_id, button!.value, { channel, messageTs: ts });
  return h.fake.waitFor('chat.update', (c) => c.args.ts === ts && updatesOf(ts).indexOf(c) >= before, WAIT);
}

async function addRule(text: string, channel = CHANNEL): Promise<number> {
  const seen = new Set(h.fake.calls('chat.postMessage'));
  await h.command(text, { channel });
  const added = await h.fake.waitFor(
    'chat.postMessage',
    (c) => !seen.has(c) && c.args.channel === channel && /^Alert rule #\d+ added$/.test(headerOf(c.args) ?? ''),
    WAIT,
  );
  return Number(/#(\d+)/.exec(headerOf(added.args)!)![1]);
}

describe('alerts in Slack', () => {
  it('posts one message per incident, redraws it in place for each step, and follows up in its thread', async () => {
    // Kraken's PoL in the simulator's dataset, before anything moves.
    const start = h.sim.store.exchange('kraken')!.pol.at(-1)!;
    expect(start).toBeLessThan(0.1);
    const id = await addRule('alert add kraken when pol above 10% cooldown none');
    expect((await service.store.getInChannel(id, 'slack', CHANNEL))?.condition).toEqual({ kind: 'pol_above', threshold: 0.1 });

    // The first check records where Kraken stands: below the line, nothing posted.
    expect((await service.tick()).check.rules).toBe(1);
    expect(alertMessages(CHANNEL)).toHaveLength(0);

    await move({ kind: 'exchange', slug: 'kraken', pol: 0.12 });
    const fired = await service.tick();
    expect(fired).toMatchObject({ posted: 1, check: { events: [{ type: 'opened' }] } });
    expect(alertMessages(CHANNEL)).toHaveLength(1);
    const message = alertMessages(CHANNEL)[0]!;
    const ts = (message.response as { ts: string }).ts;
    expect(headerOf(message.args)).toBe('🔔 Alert: Kraken');
    const shown = blocksJson(message.args);
    expect(shown).toContain('12.0%');
    expect(shown).toContain('Open since');
    expect(buttons(message).map((b) => [b.text.text, b.value])).toEqual([
      ['Acknowledge', expect.stringMatching(/^alert ack \d+$/)],
      ['Snooze 1h', expect.stringMatching(/^alert snooze \d+ 1h$/)],
      ['Snooze 24h', expect.stringMatching(/^alert snooze \d+ 24h$/)],
      ['Resolve', expect.stringMatching(/^alert resolve \d+$/)],
      ['View card', 'exchange:kraken'],
    ]);
    // The chart of the last 30 days went with it.
    await h.fake
      .waitFor('files.completeUploadExternal', (c) => c.args.channel_id === CHANNEL || c.args.channels === CHANNEL, 8_000)
      .catch(() => undefined);

    // The condition still holds at the next check: no second message.
    await db.query('UPDATE alert_rules SET next_check = now()');
    expect((await service.tick()).posted).toBe(0);
    // Nor after a restart: a new service on the same store judges against what was stored.
    const restarted = serviceOn(new AlertStore(db));
    await db.query('UPDATE alert_rules SET next_check = now()');
    expect((await restarted.tick()).posted).toBe(0);
    expect(alertMessages(CHANNEL)).toHaveLength(1);

    // The data the message was drawn from: the simulator's, over REST, as of when it was posted.
    const posted = footerOf(message);
    expect(posted).toMatch(/^as of \d{4}-\d\d-\d\d \d\d:\d\d UTC · source REST · :test_tube: \*SIMULATED DATA\*$/);

    // Acknowledged minutes later: the person is a mention (Slack shows their current name, and an
    // update notifies nobody), and the footer still says where and when the data came from.
    const acknowledged = await later(() => click(message, 'Acknowledge', ts));
    expect(blocksJson(acknowledged.args)).toMatch(new RegExp(`Acknowledged by <@${DEFAULT_USER_ID}> at \\d+ \\w+ \\d\\d:\\d\\d UTC`));
    expect(blocksJson(acknowledged.args)).not.toContain('fake.user');
    expect(String(acknowledged.args.text)).not.toContain('<@');
    expect(footerOf(acknowledged)).toBe(posted);
    expect(buttons(acknowledged).map((b) => b.text.text)).toEqual(['Snooze 1h', 'Snooze 24h', 'Resolve', 'View card']);

    // Worse again while open: a reply in the message's thread, never a new message, and the
    // message itself shows where the value is now, the worst it reached and where it opened.
    await move({ kind: 'exchange', slug: 'kraken', pol: 0.15 });
    expect(await service.tick()).toMatchObject({ followups: 1, redrawn: 1 });
    const reply = posts(CHANNEL).at(-1)!;
    expect(reply.args.thread_ts).toBe(ts);
    expect(blocksJson(reply.args)).toContain('from 12.0% to 15.0%');
    expect(alertMessages(CHANNEL)).toHaveLength(1);
    const again = updatesOf(ts).at(-1)!;
    expect(blocksJson(again.args)).toContain('now 15.0% · worst 15.0% · opened at 12.0%');
    expect(blocksJson(again.args)).toContain('*PoL:*  *15.0%*');
    expect(blocksJson(again.args)).toContain(`Acknowledged by <@${DEFAULT_USER_ID}>`);
    expect(footerOf(again)).toMatch(/source REST · :test_tube: \*SIMULATED DATA\*$/);

    const snoozed = await click(message, 'Snooze 1h', ts);
    expect(blocksJson(snoozed.args)).toMatch(new RegExp(`Snoozed by <@${DEFAULT_USER_ID}> until \\d+ \\w+ \\d\\d:\\d\\d UTC`));
    // Snoozed: a further worsening is not posted in the thread, and the message quietly shows it.
    await move({ kind: 'exchange', slug: 'kraken', pol: 0.18 });
    const quiet = await service.tick();
    expect(quiet).toMatchObject({ followups: 0, redrawn: 1 });
    expect(posts(CHANNEL).filter((c) => c.args.thread_ts === ts)).toHaveLength(1);
    expect(blocksJson(updatesOf(ts).at(-1)!.args)).toContain('now 18.0% · worst 18.0% · opened at 12.0%');
    // Better, though still above the line: nothing moves, and the worst stays.
    await move({ kind: 'exchange', slug: 'kraken', pol: 0.16 });
    expect(await service.tick()).toMatchObject({ followups: 0, redrawn: 0 });

    const resolved = await click(message, 'Resolve', ts);
    expect(blocksJson(resolved.args)).toMatch(new RegExp(`Resolved by <@${DEFAULT_USER_ID}> at`));
    expect(blocksJson(resolved.args)).toContain('last 18.0% · worst 18.0% · opened at 12.0%');
    expect(footerOf(resolved)).toMatch(/source REST · :test_tube: \*SIMULATED DATA\*$/);
    expect(headerOf(resolved.args)).toBe('✅ Alert: Kraken');
    expect(buttons(resolved).map((b) => b.text.text)).toEqual(['View card']);
    expect(alertMessages(CHANNEL)).toHaveLength(1);

    // Someone resolving it again is told privately that it is closed; the message is left as it is.
    const updates = h.fake.calls('chat.update').length;
    const [incident] = await db.query<{ id: number }>('SELECT id FROM alert_incidents ORDER BY id DESC LIMIT 1');
    await h.command(`alert resolve ${incident!.id}`, { channel: CHANNEL, responseId: 'resolve-again' });
    const told = await h.fake.waitFor('response_url', (c) => c.id === 'resolve-again', WAIT);
    expect(String(told.args.text)).toMatch(/closed already/);
    expect(blocksJson(told.args)).toMatch(new RegExp(`Resolved by <@${DEFAULT_USER_ID}> at`));
    expect(h.fake.calls('chat.update')).toHaveLength(updates);

    // Removed, the rule is checked no more: Kraken still above the line posts nothing.
    await h.command(`alert remove ${id}`, { channel: CHANNEL });
    await h.fake.waitFor('chat.postMessage', (c) => headerOf(c.args) === `Alert rule #${id} removed`, WAIT);
    await db.query('UPDATE alert_rules SET next_check = now()');
    expect((await service.tick()).check.rules).toBe(0);
  });

  it('closes an incident by itself when its level falls back, saying so in the message and its thread', async () => {
    const channel = 'CALERTS02';
    const start = h.sim.store.exchange('okx')!.pol.at(-1)!;
    const id = await addRule(`alert add okx when pol above ${((start + 0.03) * 100).toFixed(1)}%`, channel);
    await service.tick();
    await move({ kind: 'exchange', slug: 'okx', pol: start + 0.05 });
    expect((await service.tick()).posted).toBe(1);
    const ts = (alertMessages(channel)[0]!.response as { ts: string }).ts;
    const posted = footerOf(alertMessages(channel)[0]!);
    expect(posted).toMatch(/source REST · :test_tube: \*SIMULATED DATA\*$/);

    // It clears minutes later: the message says so, from the same data as before plus the reading
    // that cleared it, so its footer keeps the source, the simulated label and the older as-of time.
    await move({ kind: 'exchange', slug: 'okx', pol: start });
    const cleared = await later(() => service.tick());
    expect(cleared.check.events.map((e) => e.type)).toEqual(['cleared']);
    const redrawn = updatesOf(ts).at(-1)!;
    expect(headerOf(redrawn.args)).toBe('✅ Alert: OKX');
    expect(blocksJson(redrawn.args)).toContain('Cleared by itself at');
    expect(footerOf(redrawn)).toBe(posted);
    const [high, low] = [start + 0.05, start].map((v) => `${(v * 100).toFixed(1)}%`);
    expect(blocksJson(redrawn.args)).toContain(`cleared at ${low} · worst ${high} · opened at ${high}`);
    expect(buttons(redrawn).map((b) => b.text.text)).toEqual(['View card']);
    const thread = posts(channel).filter((c) => c.args.thread_ts === ts);
    expect(thread).toHaveLength(1);
    expect(headerOf(thread[0]!.args) ?? blocksJson(thread[0]!.args)).toMatch(/Cleared: OKX/);
    expect(await service.store.openCounts('slack', channel)).toEqual(new Map());
    expect(alertMessages(channel)).toHaveLength(1);
    expect(id).toBeGreaterThan(0);
  });

  it('coalesces rules firing together in one channel into one message, whose buttons act on all of them', async () => {
    const channel = 'CALERTS03';
    await addRule('alert add aave when rating below BBB', channel);
    await addRule('alert add uniswap when new red flag', channel);
    await service.tick();
    await move({ kind: 'project', slug: 'aave', rating: 'CCC' });
    await move({ kind: 'project', slug: 'uniswap', redFlag: 'Team wallet moved 4% of supply' });
    const together = await service.tick();
    expect(together.check.events.map((e) => `${e.type} ${e.entity.slug}`).sort(), JSON.stringify(together.check)).toEqual([
      'opened aave',
      'opened uniswap',
    ]);
    expect(together.posted).toBe(1);
    expect(alertMessages(channel)).toHaveLength(1);
    const message = alertMessages(channel)[0]!;
    const shown = blocksJson(message.args);
    expect(headerOf(message.args)).toBe('🔔 2 alerts: Aave, Uniswap');
    expect(shown).toContain('Aave');
    expect(shown).toContain('Team wallet moved 4% of supply');
    const ts = (message.response as { ts: string }).ts;
    const acknowledged = await click(message, 'Acknowledge', ts, channel);
    expect(blocksJson(acknowledged.args).match(new RegExp(`Acknowledged by <@${DEFAULT_USER_ID}>`, 'g'))).toHaveLength(2);
    expect(footerOf(acknowledged)).toBe(footerOf(message));
  });

  it('waits out Slack’s rate limit (429 with Retry-After) and still posts the alert once', async () => {
    const channel = 'CALERTS07';
    const start = h.sim.store.exchange('bitget')!.pol.at(-1)!;
    await addRule(`alert add bitget when pol above ${((start + 0.02) * 100).toFixed(1)}%`, channel);
    await service.tick();
    await move({ kind: 'exchange', slug: 'bitget', pol: start + 0.04 });
    h.fake.rateLimitNext('chat.postMessage', { retryAfterSec: 1 });
    const report = await service.tick();
    expect(report).toMatchObject({ posted: 1, failed: 0 });
    expect(h.fake.calls('chat.postMessage').filter((c) => c.status === 429)).toHaveLength(1);
    expect(alertMessages(channel).map((c) => headerOf(c.args))).toEqual(['🔔 Alert: Bitget']);
  });

  it('refuses what it cannot read: a bad condition with the grammar, a threshold out of its domain, an ambiguous name', async () => {
    const ask = async (text: string, id: string) => {
      await h.command(text, { channel: 'CALERTS04', responseId: id });
      return h.fake.waitFor('response_url', (c) => c.id === id && !/Looking up/.test(String(c.args.text)), WAIT);
    };
    expect(String((await ask('alert add kraken when pol is high', 'bad-cond')).args.text)).toMatch(/not a condition I know.*pol above 5%/s);
    expect(String((await ask('alert add kraken when pol above 150%', 'bad-pol')).args.text)).toMatch(/between 0% and 100%/);
    expect(String((await ask('alert add aave when security below 200', 'bad-score')).args.text)).toMatch(/0 to 100/);
    expect(String((await ask('alert add aave when rating below Q', 'bad-rating')).args.text)).toMatch(/not a rating/);
    const ambiguous = await ask('alert add shiba when downgrade', 'ambiguous');
    expect(blocksJson(ambiguous.args)).toContain('alert add project:shiba-inu when downgrade');
    expect(await service.store.listChannel('slack', 'CALERTS04')).toEqual([]);
  });
});

describe('alerts in Slack, held within limits', () => {
  let quietDb: Db;
  let quiet: AlertService;
  beforeAll(async () => {
    quietDb = await openPglite();
    await migrate(quietDb);
    quiet = serviceOn(new AlertStore(quietDb), { leaseMs: 60_000, limits: { perChannelHour: 2 } });
  });
  afterAll(async () => {
    h.core.ctx.alerts = service;
    await quietDb.close();
  });

  const dueNow = () => quietDb.query('UPDATE alert_rules SET next_check = now()');
  async function rule(channel: string, slug: string, when: string): Promise<number> {
    h.core.ctx.alerts = quiet;
    return addRule(`alert add ${slug} when ${when}`, channel);
  }

  it('stops at the hourly ceiling with one notice, pauses the channel rules, and resumes them on request', async () => {
    const channel = 'CALERTS05';
    for (const slug of ['gemini', 'bitstamp', 'bitfinex']) await rule(channel, slug, 'any change');
    await quiet.tick();
    // Three checks, each moving one exchange: two messages, then the ceiling.
    for (const [slug, pol] of [
      ['gemini', 0.041],
      ['bitstamp', 0.042],
      ['bitfinex', 0.043],
    ] as const) {
      await move({ kind: 'exchange', slug, pol });
      await dueNow();
      await quiet.tick();
    }
    expect(alertMessages(channel).map((c) => headerOf(c.args))).toEqual(['🔔 Alert: Gemini', '🔔 Alert: Bitstamp']);
    const notices = topLevel(channel).filter((c) => headerOf(c.args) === '⏸️ Alerts paused in this channel');
    expect(notices).toHaveLength(1);
    expect(blocksJson(notices[0]!.args)).toContain('2 alert messages in the last hour');
    expect(blocksJson(notices[0]!.args)).toContain('Bitfinex');
    expect(blocksJson(notices[0]!.args)).toContain('/pol alert resume all');
    const rules = await quiet.store.listChannel('slack', channel);
    expect(rules.map((r) => [r.state, r.stateReason])).toEqual([
      ['paused', 'too many alerts in an hour'],
      ['paused', 'too many alerts in an hour'],
      ['paused', 'too many alerts in an hour'],
    ]);
    // Paused, nothing is checked or posted.
    await move({ kind: 'exchange', slug: 'gemini', pol: 0.05 });
    await dueNow();
    expect((await quiet.tick()).check.rules).toBe(0);

    await h.command('alert list', { channel, responseId: 'ceiling-list' });
    const list = await h.fake.waitFor(
      'chat.postMessage',
      (c) => c.args.channel === channel && /^Alert rules in this channel/.test(headerOf(c.args) ?? ''),
      WAIT,
    );
    expect(blocksJson(list.args)).toContain(
      'Paused (#1, #2, #3: too many alerts in an hour). Paused rules are not checked; fix the cause if one is given, then `/pol alert resume all`.',
    );
    await h.command('alert resume all', { channel });
    await h.fake.waitFor('chat.postMessage', (c) => c.args.channel === channel && headerOf(c.args) === '3 alert rules resumed', WAIT);
    expect((await quiet.store.listChannel('slack', channel)).every((r) => r.state === 'active')).toBe(true);
  });

  it('holds rules to their limits per channel and per workspace, saying which', async () => {
    const strictDb = await openPglite();
    await migrate(strictDb);
    const strict = new AlertService({
      store: new AlertStore(strictDb),
      deps: h.core.ctx,
      deliverers: [slackDeliverer(h.slack)],
      limits: { perChannel: 1, perWorkspace: 2 },
    });
    h.core.ctx.alerts = strict;
    onTestFinished(() => strictDb.close());
    await addRule('alert add kraken when downgrade', 'CALERTS09');
    await h.command('alert add okx when downgrade', { channel: 'CALERTS09', responseId: 'channel-full' });
    const full = await h.fake.waitFor('response_url', (c) => c.id === 'channel-full', WAIT);
    expect(String(full.args.text)).toBe('This channel already has 1 alert rule, the most it can have.');
    await addRule('alert add okx when downgrade', 'CALERTS10');
    await h.command('alert add bybit when downgrade', { channel: 'CALERTS11', responseId: 'workspace-full' });
    const workspace = await h.fake.waitFor('response_url', (c) => c.id === 'workspace-full', WAIT);
    expect(String(workspace.args.text)).toBe('This workspace already has 2 alert rules across its channels, the most it can have.');
    expect(await strict.store.listChannel('slack', 'CALERTS11')).toEqual([]);
  });

  it('pauses the rules of a channel that is gone, says why in the list, and loses nothing silently', async () => {
    const channel = 'CALERTS06';
    h.core.ctx.alerts = quiet;
    await rule(channel, 'htx', 'any change');
    await quiet.tick();
    h.fake.failChannel(channel, 'is_archived');
    try {
      await move({ kind: 'exchange', slug: 'huobi', pol: 0.061 });
      await dueNow();
      const report = await quiet.tick();
      expect(report).toMatchObject({ posted: 0, failed: 1 });
    } finally {
      h.fake.failChannel(channel, null);
    }
    const [r] = await quiet.store.listChannel('slack', channel);
    expect(r).toMatchObject({ state: 'paused', stateReason: 'paused: the channel is archived' });
    const [incident] = await quietDb.query<{ delivery_state: string; delivery_error: string }>(
      `SELECT delivery_state, delivery_error FROM alert_incidents WHERE slug = 'huobi'`,
    );
    expect(incident).toEqual({ delivery_state: 'failed', delivery_error: 'the channel is archived' });
    await h.command('alert list', { channel });
    const list = await h.fake.waitFor(
      'chat.postMessage',
      (c) => c.args.channel === channel && /^Alert rules in this channel/.test(headerOf(c.args) ?? ''),
      WAIT,
    );
    expect(blocksJson(list.args)).toMatch(/Paused \(#\d+: the channel is archived\)/);
  });
});

describe('alerts in Slack, many rules due at once', () => {
  it('checks every due rule in one tick, a batch at a time', async () => {
    const manyDb = await openPglite();
    try {
      await migrate(manyDb);
      const store = new AlertStore(manyDb);
      const many = serviceOn(store, { batch: 3 });
      for (let i = 0; i < 7; i++) {
        const created = await store.create(
          {
            platform: 'slack',
            workspaceId: 'T1',
            channelId: 'CALERTS08',
            entities: [{ kind: 'exchange', slug: 'kraken', name: 'Kraken' }],
            condition: { kind: 'downgrade' },
            conditionText: 'downgrade',
            everySec: 300,
            cooldownSec: 0,
            createdBy: 'U1',
          },
          Date.now(),
          { perChannel: 10, perWorkspace: 10 },
        );
        expect(created.ok).toBe(true);
      }
      expect((await many.tick()).check).toMatchObject({ rules: 7, entities: 3 });
      expect(
        (await manyDb.query<{ n: number }>('SELECT count(*)::int AS n FROM alert_rules WHERE last_checked_at IS NOT NULL'))[0]!.n,
      ).toBe(7);
    } finally {
      await manyDb.close();
    }
  });
});

describe('alerts in Slack, from a database at schema version 6', () => {
  let oldDb: Db;
  beforeAll(async () => {
    oldDb = await openPglite();
    expect(
      await migrate(
        oldDb,
        MIGRATIONS.filter((m) => m.version <= 6),
      ),
    ).toEqual([1, 2, 3, 4, 5, 6]);
  });
  afterAll(async () => {
    h.core.ctx.alerts = service;
    await oldDb.close();
  });

  it('redraws an incident opened before the upgrade with its data’s source, its people as they were stored, and its latest values', async () => {
    // Crypto.com crossed 10% while the old polbot ran: its rule, its open incident acknowledged by
    // a person it knew by name only, and its message in the channel.
    const channel = 'CALERTS12';
    const start = h.sim.store.exchange('crypto-com')!.pol.at(-1)!;
    expect(start).toBeLessThan(0.1);
    await move({ kind: 'exchange', slug: 'crypto-com', pol: 0.12 });
    const store = new AlertStore(oldDb);
    const created = await store.create(
      {
        platform: 'slack',
        workspaceId: 'T0FAKE',
        channelId: channel,
        entities: [{ kind: 'exchange', slug: 'crypto-com', name: 'Crypto.com Exchange' }],
        condition: { kind: 'pol_above', threshold: 0.1 },
        conditionText: 'pol above 10%',
        everySec: 300,
        cooldownSec: 0,
        createdBy: DEFAULT_USER_ID,
      },
      Date.now(),
      { perChannel: 20, perWorkspace: 200 },
    );
    if (!created.ok) throw new Error(created.reason);
    const rule = created.rule;
    const ts = await slackDeliverer(h.slack).post(channel, { kind: 'text', title: '🔔 Alert: Crypto.com Exchange', text: 'Open' });
    const opened = Date.now() - 3_600_000;
    const [incident] = await oldDb.query<{ id: number }>(
      `INSERT INTO alert_incidents (rule_id, kind, slug, status, verdict, opened_at, updated_at, acknowledged_by, acknowledged_at,
                                    message_ref, delivery_state, delivered_at)
       VALUES ($1, 'exchange', 'crypto-com', 'acknowledged', $2::jsonb, $3, $3, 'tester-9c1', $3, $4, 'delivered', $3) RETURNING id`,
      [rule.id, JSON.stringify({ holds: true, change: { from: '3.6%', to: '12.0%', trend: 'worse' } }), new Date(opened), ts],
    );
    const id = incident!.id;
    // What the old polbot's last check saw, so the next check judges against it.
    await oldDb.query(`UPDATE alert_rule_entities SET reading = $2::jsonb, holds = true, checked_at = $3 WHERE rule_id = $1`, [
      rule.id,
      JSON.stringify({ at: Math.floor(opened / 1000), pol: 0.12, rating: null, flags: null, categories: null }),
      new Date(opened),
    ]);
    await oldDb.query('UPDATE alert_rules SET last_checked_at = $2 WHERE id = $1', [rule.id, new Date(opened)]);

    expect(await migrate(oldDb)).toEqual([7]);
    const upgraded = serviceOn(store, { leaseMs: 60_000 });
    h.core.ctx.alerts = upgraded;

    // Snoozed by someone after the upgrade: a mention; the acknowledgement from before stays a name.
    // Where its data came from was never recorded, so the redraw looks it up (and keeps it).
    await h.command(`alert snooze ${id} 1h`, { channel });
    const snoozed = await h.fake.waitFor('chat.update', (c) => c.args.ts === ts, WAIT);
    expect(blocksJson(snoozed.args)).toMatch(
      new RegExp(`Snoozed by <@${DEFAULT_USER_ID}> until \\d+ \\w+ \\d\\d:\\d\\d UTC \\(acknowledged by tester-9c1\\)`),
    );
    expect(blocksJson(snoozed.args)).toContain('*PoL:*  *12.0%*');
    expect(footerOf(snoozed)).toMatch(/^as of .* UTC · source REST · :test_tube: \*SIMULATED DATA\*$/);
    const [row] = await oldDb.query<{ shown: unknown; snoozed_by_id: string; acknowledged_by_id: string | null }>(
      'SELECT shown, snoozed_by_id, acknowledged_by_id FROM alert_incidents WHERE id = $1',
      [id],
    );
    expect(row).toMatchObject({
      shown: { chart: [{ source: 'rest', simulated: true }] },
      snoozed_by_id: DEFAULT_USER_ID,
      acknowledged_by_id: null,
    });

    // Worse again while snoozed: the thread stays quiet, and the message shows the latest and worst
    // values next to the one it opened at, still saying where its data came from.
    await move({ kind: 'exchange', slug: 'crypto-com', pol: 0.2 });
    await oldDb.query('UPDATE alert_rules SET next_check = now()');
    expect(await upgraded.tick()).toMatchObject({ followups: 0, redrawn: 1 });
    const again = updatesOf(ts).at(-1)!;
    expect(blocksJson(again.args)).toContain('now 20.0% · worst 20.0% · opened at 12.0%');
    expect(blocksJson(again.args)).toContain('(acknowledged by tester-9c1)');
    expect(footerOf(again)).toMatch(/source REST · :test_tube: \*SIMULATED DATA\*$/);
    expect(posts(channel).filter((c) => c.args.thread_ts === ts)).toEqual([]);
  });
});
