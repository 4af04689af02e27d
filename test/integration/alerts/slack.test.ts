import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { slackDeliverer } from '../../../adapters/slack/deliverer.js';
import { alertKey } from '../../../src/alerts/key.js';
import { escalationMessage } from '../../../src/alerts/message.js';
import { Outbox } from '../../../src/alerts/outbox.js';
import { AlertService, type AlertServiceOptions } from '../../../src/alerts/service.js';
import { AlertStore } from '../../../src/alerts/store.js';
import { openPglite, type Db } from '../../../src/db/connection.js';
import { migrate, MIGRATIONS } from '../../../src/db/migrations.js';
import type { RecordedCall } from '../../fakes/slack/index.js';
import { startFakeWebhook, type FakeWebhook } from '../../fakes/webhook/index.js';
import { DEFAULT_USER_ID } from '../../fakes/slack/identity.js';
import { alertsOnPglite, DAY, MINUTE, writeHistory } from '../../helpers/alerts.js';
import { simMove } from '../../helpers/sim.js';
import { addRuleBySlash, moveAndDue } from '../../helpers/slack/alerts.js';
import { blocksJson, footerLineOf, headerOf, quiesce, startHarness, tableRowsOf, type Harness } from '../../helpers/slack/harness.js';

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

const move = (body: Record<string, unknown>) => moveAndDue(h, db, body);

/** Messages that landed in the channel: a post Slack refused (429, invalid_blocks) is none. */
const posts = (channel: string) =>
  h.fake.calls('chat.postMessage').filter((c) => c.args.channel === channel && c.status === 200 && (c.response as { ok: boolean }).ok);
const topLevel = (channel: string) => posts(channel).filter((c) => !c.args.thread_ts);
const alertMessages = (channel: string) => topLevel(channel).filter((c) => /Alert:|\d alerts:/.test(headerOf(c.args) ?? ''));
const updatesOf = (ts: string) => h.fake.calls('chat.update').filter((c) => c.args.ts === ts);
/** The image block a message shows, if any. */
const chartOf = (call: RecordedCall) =>
  ((call.args.blocks ?? []) as { type: string; slack_file?: { id: string }; alt_text?: string }[]).find((b) => b.type === 'image');
/** Files shared into the channel: each would be a message of its own there. */
const sharedInto = (channel: string) => h.fake.files().filter((f) => f.channels.includes(channel));
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

interface Button {
  type: 'button';
  action_id: string;
  value: string;
  text: { text: string };
}
interface Select {
  type: 'static_select';
  action_id: string;
  placeholder: { text: string };
  options: { text: { text: string }; value: string }[];
}
const elements = (call: RecordedCall): (Button | Select)[] =>
  ((call.args.blocks ?? []) as { type: string; elements?: (Button | Select)[] }[])
    .filter((b) => b.type === 'actions')
    .flatMap((b) => b.elements ?? []);
const buttons = (call: RecordedCall): Button[] => elements(call).filter((e): e is Button => e.type === 'button');
/** The alert's "Resolve as…" menu: a static select whose options carry the whole command. */
const resolveMenu = (call: RecordedCall): Select | undefined =>
  elements(call).find((e): e is Select => e.type === 'static_select' && e.placeholder.text === 'Resolve as…');

/** Does something to the alert message and waits for the redraw it causes. */
async function redrawnBy(ts: string, act: () => Promise<unknown>): Promise<RecordedCall> {
  const before = updatesOf(ts).length;
  await act();
  return h.fake.waitFor('chat.update', (c) => c.args.ts === ts && updatesOf(ts).indexOf(c) >= before, WAIT);
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
  const button = buttons(updatesOf(ts).at(-1) ?? message).find((b) => b.text.text === label);
  expect(button, `no ${label} button`).toBeDefined();
  return redrawnBy(ts, () => h.click(button!.action_id, button!.value, { channel, messageTs: ts }));
}

/** Picks a reason from the alert's "Resolve as…" menu, as Slack sends a static select's pick. */
async function resolveAs(message: RecordedCall, label: string, ts: string, channel = CHANNEL): Promise<RecordedCall> {
  const menu = resolveMenu(updatesOf(ts).at(-1) ?? message);
  const option = menu?.options.find((o) => o.text.text === label);
  expect(option, `no ${label} in the Resolve as… menu`).toBeDefined();
  return redrawnBy(ts, () => h.pick(menu!.action_id, { text: label, value: option!.value }, { channel, messageTs: ts }));
}

const addRule = (text: string, channel = CHANNEL) => addRuleBySlash(h, text, channel);

/** A rule 2 points above where `slug`'s PoL stands, checked once, then PoL moved 4 points up: the next tick opens an incident. */
async function aboutToCross(slug: string, channel: string): Promise<void> {
  const start = h.sim.store.exchange(slug)!.pol.at(-1)!;
  await addRule(`alert add ${slug} when pol above ${((start + 0.02) * 100).toFixed(1)}%`, channel);
  await service.tick();
  await move({ kind: 'exchange', slug, pol: start + 0.04 });
}

/**
 * An incident opens while Slack takes `processingMs` to process each uploaded file, and is posted
 * once: every try to post its message, refused or taken.
 */
async function crossWhileSlackProcesses(slug: string, channel: string, processingMs: number): Promise<RecordedCall[]> {
  await aboutToCross(slug, channel);
  const before = new Set(h.fake.calls('chat.postMessage'));
  h.fake.processFilesFor(processingMs);
  onTestFinished(() => h.fake.processFilesFor(0));
  expect(await service.tick()).toMatchObject({ posted: 1, failed: 0 });
  return h.fake.calls('chat.postMessage').filter((c) => !before.has(c) && c.args.channel === channel && !c.args.thread_ts);
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
      ['View card', 'exchange:kraken'],
    ]);
    // The chart of the last 30 days is inside it: an image block showing a PNG uploaded without
    // being shared, so the incident is this one message, with no file message after it.
    const chart = chartOf(message);
    expect(chart).toEqual({ type: 'image', slack_file: { id: expect.any(String) }, alt_text: expect.stringContaining('Kraken') });
    const upload = h.fake.uploads().find((u) => u.file_id === chart!.slack_file!.id);
    expect(upload?.bytes.subarray(0, 8).equals(PNG)).toBe(true);
    expect(h.fake.files().find((f) => f.id === upload!.file_id)).toMatchObject({ completedAt: expect.any(Number), channels: [] });
    expect(sharedInto(CHANNEL)).toEqual([]);
    expect(topLevel(CHANNEL).map((c) => headerOf(c.args))).toEqual([`Alert rule #${id} added`, '🔔 Alert: Kraken']);
    // Resolving says why: the menu's options each carry the whole command.
    const [incidentRow] = await db.query<{ id: number }>('SELECT id FROM alert_incidents WHERE rule_id = $1', [id]);
    const n = incidentRow!.id;
    expect(resolveMenu(message)!.options.map((o) => [o.text.text, o.value])).toEqual([
      ['Real', `alert resolve ${n} as real`],
      ['Noise', `alert resolve ${n} as noise`],
      ['Duplicate', `alert resolve ${n} as duplicate`],
      ['Expected', `alert resolve ${n} as expected`],
    ]);

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
    expect(buttons(acknowledged).map((b) => b.text.text)).toEqual(['Snooze 1h', 'Snooze 24h', 'View card']);
    expect(resolveMenu(acknowledged)).toBeDefined();
    // chat.update replaces every block: the redraw shows the same chart again.
    expect(chartOf(acknowledged)).toEqual(chart);

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

    const resolved = await resolveAs(message, 'Real', ts);
    expect(blocksJson(resolved.args)).toMatch(new RegExp(`Resolved as real by <@${DEFAULT_USER_ID}> at \\d+ \\w+ \\d\\d:\\d\\d UTC`));
    expect(blocksJson(resolved.args)).toContain('last 18.0% · worst 18.0% · opened at 12.0%');
    expect(footerOf(resolved)).toMatch(/source REST · :test_tube: \*SIMULATED DATA\*$/);
    expect(headerOf(resolved.args)).toBe('✅ Alert: Kraken');
    expect(buttons(resolved).map((b) => b.text.text)).toEqual(['View card']);
    expect(chartOf(resolved)).toEqual(chart);
    expect(alertMessages(CHANNEL)).toHaveLength(1);
    expect(sharedInto(CHANNEL)).toEqual([]);
    expect(resolveMenu(resolved)).toBeUndefined();
    expect(alertMessages(CHANNEL)).toHaveLength(1);
    const [stored] = await db.query<{ status: string; closed_reason: string; closed_by: string }>(
      'SELECT status, closed_reason, closed_by FROM alert_incidents WHERE id = $1',
      [n],
    );
    expect(stored).toEqual({ status: 'resolved', closed_reason: 'real', closed_by: 'fake.user' });

    // Someone resolving it again is told privately that it is closed; the message is left as it is.
    const updates = h.fake.calls('chat.update').length;
    const [incident] = await db.query<{ id: number }>('SELECT id FROM alert_incidents ORDER BY id DESC LIMIT 1');
    await h.command(`alert resolve ${incident!.id}`, { channel: CHANNEL, responseId: 'resolve-again' });
    const told = await h.fake.waitFor('response_url', (c) => c.id === 'resolve-again', WAIT);
    expect(String(told.args.text)).toMatch(/closed already/);
    expect(blocksJson(told.args)).toMatch(new RegExp(`Resolved as real by <@${DEFAULT_USER_ID}> at`));
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
    expect(chartOf(redrawn)).toEqual(chartOf(alertMessages(channel)[0]!));
    expect(chartOf(redrawn)?.slack_file?.id).toMatch(/^F/);
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
    await aboutToCross('bitget', channel);
    h.fake.rateLimitNext('chat.postMessage', { retryAfterSec: 1 });
    const report = await service.tick();
    expect(report).toMatchObject({ posted: 1, failed: 0 });
    expect(h.fake.calls('chat.postMessage').filter((c) => c.status === 429)).toHaveLength(1);
    expect(alertMessages(channel).map((c) => headerOf(c.args))).toEqual(['🔔 Alert: Bitget']);
  });

  it('waits while Slack processes the chart, then posts the alert once with the chart inside', async () => {
    const channel = 'CALERTS12';
    // Slack needs 1.2 s before the uploaded file can be shown: the post is refused twice, then taken.
    const attempts = await crossWhileSlackProcesses('kucoin', channel, 1_200);
    expect(attempts.map((c) => (c.response as { ok: boolean; errors?: string[] }).errors ?? 'ok')).toEqual([
      [expect.stringMatching(/^\[ERROR\] invalid slack file \[json-pointer:\/blocks\/\d+\/slack_file\]$/)],
      [expect.stringMatching(/invalid slack file/)],
      'ok',
    ]);
    expect(alertMessages(channel).map((c) => headerOf(c.args))).toEqual(['🔔 Alert: KuCoin']);
    const chart = chartOf(alertMessages(channel)[0]!);
    // Every try showed the one file uploaded for it.
    expect(new Set(attempts.map((c) => chartOf(c)?.slack_file?.id))).toEqual(new Set([chart!.slack_file!.id]));
    expect(sharedInto(channel)).toEqual([]);
    expect(blocksJson(alertMessages(channel)[0]!.args)).not.toContain('The chart could not be shown');
  });

  it('posts the alert without its chart, saying so, when Slack never finishes processing it; never two messages', async () => {
    const channel = 'CALERTS13';
    const attempts = await crossWhileSlackProcesses('bybit', channel, 60_000);
    // Four tries over about 3.5 s, each refused for the file, then the message without it.
    expect(attempts.map((c) => (c.response as { ok: boolean }).ok)).toEqual([false, false, false, false, true]);
    expect(attempts[4]!.at.getTime() - attempts[0]!.at.getTime()).toBeGreaterThanOrEqual(3_400);
    const [message, ...more] = alertMessages(channel);
    expect(more).toEqual([]);
    expect(headerOf(message!.args)).toBe('🔔 Alert: Bybit');
    expect(chartOf(message!)).toBeUndefined();
    expect(blocksJson(message!.args)).toContain('The chart could not be shown: Slack had not finished processing it.');
    expect(sharedInto(channel)).toEqual([]);
    // Still the incident's one message: its key is in it, and Acknowledge redraws it in place.
    const [incident] = await db.query<{ id: number }>(`SELECT id FROM alert_incidents WHERE slug = 'bybit' ORDER BY id DESC LIMIT 1`);
    expect(await slackDeliverer(h.slack).find!(channel, alertKey(incident!.id))).toBe((message!.response as { ts: string }).ts);
    const ts = (message!.response as { ts: string }).ts;
    const acknowledged = await click(message!, 'Acknowledge', ts, channel);
    expect(blocksJson(acknowledged.args)).toMatch(new RegExp(`Acknowledged by <@${DEFAULT_USER_ID}>`));
    expect(alertMessages(channel)).toHaveLength(1);
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

describe('alerts in Slack: resolving with a reason, and how each rule did', () => {
  const channel = 'CALERTS20';
  let statsDb: Db;
  let stats: AlertService;
  beforeAll(async () => {
    ({ db: statsDb, service: stats } = await alertsOnPglite({
      deps: h.core.ctx,
      deliverers: [slackDeliverer(h.slack)],
      complete: h.core.complete,
    }));
    h.core.ctx.alerts = stats;
  });
  afterAll(async () => {
    h.core.ctx.alerts = service;
    await statsDb.close();
  });

  /** Asks in the channel; the answer is the next channel post with that header, or the asker's private answer. */
  async function ask(text: string, header: string): Promise<RecordedCall> {
    const seen = new Set(h.fake.calls('chat.postMessage'));
    await h.command(text, { channel });
    return h.fake.waitFor('chat.postMessage', (c) => !seen.has(c) && c.args.channel === channel && headerOf(c.args) === header, WAIT);
  }
  async function privately(text: string, id: string): Promise<RecordedCall> {
    await h.command(text, { channel, responseId: id });
    return h.fake.waitFor('response_url', (c) => c.id === id && !/Looking up/.test(String(c.args.text)), WAIT);
  }
  /** The rows of the table in a posted message, by rule number: each cell as shown, the padding gone. */
  function tableRows(call: RecordedCall): Record<string, string[]> {
    // The stats as Slack's table block: the header row, then one row per rule, its number first.
    const rows = tableRowsOf(call.args.blocks)!.slice(1);
    // An empty cell shows as a dash; a rule with no suggestion has its last cell empty.
    return Object.fromEntries(rows.map(([id, ...cells]) => [id!, cells.at(-1) === '—' ? cells.slice(0, -1) : cells]));
  }
  const noteOf = (call: RecordedCall) =>
    ((call.args.blocks ?? []) as { type: string; elements?: { text?: string }[] }[]).find((b) => b.type === 'context')?.elements?.[0]
      ?.text ?? '';
  const incident = async (id: number) =>
    (
      await statsDb.query<{ status: string; closed_reason: string | null; closed_by: string | null; closed_at: Date | null }>(
        'SELECT status, closed_reason, closed_by, closed_at FROM alert_incidents WHERE id = $1',
        [id],
      )
    )[0]!;

  it('counts alerts, the median time to acknowledge and the share resolved as noise over the window, and says what to do about a noisy rule', async () => {
    await addRule('alert add crypto-com when pol above 5%', channel);
    await addRule('alert add maker when pol rises by 2pp in 7d cooldown 1h', channel);
    await addRule('alert add chainlink when new red flag', channel);
    await addRule('alert add compound when rating below CCC', channel);
    const [level, change, flags, rating] = await stats.store.listChannel('slack', channel);
    const now = Date.now();
    const ago = (days: number) => now - days * DAY;
    await writeHistory(stats.store, level!, [
      { openedAt: ago(20), ackAfterMin: 2, reason: 'noise' },
      { openedAt: ago(12), ackAfterMin: 10, reason: 'real' },
      { openedAt: ago(10), ackAfterMin: 4, reason: 'noise' },
      { openedAt: ago(3), reason: 'noise' },
    ]);
    await writeHistory(stats.store, change!, [
      { openedAt: ago(25), ackAfterMin: 1, reason: 'noise' },
      { openedAt: ago(22), ackAfterMin: 3, reason: 'noise' },
      { openedAt: ago(18), ackAfterMin: 5, reason: 'real' },
      { openedAt: ago(15), ackAfterMin: 7, reason: 'noise' },
      { openedAt: ago(8), reason: 'real' },
      { openedAt: ago(5), reason: 'expected' },
    ]);
    await writeHistory(stats.store, flags!, [
      { openedAt: ago(40), reason: 'noise' },
      { openedAt: ago(35), reason: 'noise' },
      { openedAt: ago(28), reason: 'noise' },
      { openedAt: ago(21), reason: 'duplicate' },
      { openedAt: ago(14), reason: 'duplicate' },
      { openedAt: ago(8), reason: 'noise' },
      { openedAt: ago(2), reason: 'duplicate' },
    ]);
    await writeHistory(stats.store, rating!, [
      { openedAt: ago(29), ackAfterMin: 30, reason: 'noise' },
      { openedAt: ago(26), ackAfterMin: 90, reason: 'noise' },
      { openedAt: ago(23), reason: 'noise' },
      { openedAt: ago(20), reason: 'noise' },
      { openedAt: ago(17), reason: 'noise' },
    ]);
    const [a, b, c, d] = [level!.id, change!.id, flags!.id, rating!.id].map(String) as [string, string, string, string];

    // Four alerts of the level rule, three of them noise: not enough to flag. The change rule's six,
    // half noise, are; so are the rating rule's five, all noise. The red flags' 40% is not.
    const month = await ask('alert stats', 'Alert rules over the last 30 days');
    expect(tableRows(month)).toEqual({
      [a]: ['Crypto.com Exchange', 'pol above 5%', '4', '4 min', '75% of 4'],
      [b]: ['Maker', 'pol rises by 2pp in 7d', '6', '4 min', '50% of 6', 'longer cooldown: 2h'],
      [c]: ['Chainlink', 'new red flag', '5', '—', '40% of 5'],
      [d]: ['Compound', 'rating below CCC', '5', '60 min', '100% of 5', 'mute or pause it'],
    });
    // The noisiest first: all noise, then half.
    expect(noteOf(month)).toBe(
      'Lower is better: median ack (of alerts acknowledged), noise (of alerts resolved with a reason). Flagged from 5 alerts, half or more of them noise.' +
        ` #${d}: mute it for a week, \`/pol alert mute rule ${d} 7d\`, or pause it, \`/pol alert pause ${d}\`.` +
        ` #${b}, a longer cooldown: \`/pol alert add project:maker when pol rises by 2pp in 7d cooldown 2h\`, then \`/pol alert remove ${b}\`.`,
    );

    // A fifth alert of the level rule, from the simulator moving across its line.
    expect((await stats.tick()).posted).toBe(0);
    const res = await fetch(`${h.sim.url}/_sim/move`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': h.sim.apiKey },
      body: JSON.stringify({ kind: 'exchange', slug: 'crypto-com', pol: 0.06 }),
    });
    expect(res.status).toBe(200);
    h.core.upstream.source.cache.clear();
    await statsDb.query('UPDATE alert_rules SET next_check = now()');
    expect((await stats.tick()).posted).toBe(1);
    const message = alertMessages(channel)[0]!;
    expect(headerOf(message.args)).toBe('🔔 Alert: Crypto.com Exchange');
    expect(blocksJson(message.args)).toContain('6.0%');
    const ts = (message.response as { ts: string }).ts;
    const [{ id: n } = { id: 0 }] = await statsDb.query<{ id: number }>(
      `SELECT id FROM alert_incidents WHERE rule_id = $1 AND status = 'open'`,
      [level!.id],
    );

    // Resolving without a reason asks why, privately: each choice is the whole command.
    const asked = await privately(`alert resolve ${n}`, 'resolve-why');
    expect(asked.args.response_type).toBe('ephemeral');
    expect(blocksJson(asked.args)).toContain(`Why is alert #${n} resolved?`);
    const choices = ((asked.args.blocks ?? []) as { accessory?: { value: string } }[]).flatMap((b) =>
      b.accessory ? [b.accessory.value] : [],
    );
    expect(choices).toEqual([
      `alert resolve ${n} as real`,
      `alert resolve ${n} as noise`,
      `alert resolve ${n} as duplicate`,
      `alert resolve ${n} as expected`,
    ]);
    expect((await incident(n)).status).toBe('open');

    // A reason that is not one of the four is refused with them, and nothing changes.
    const updates = updatesOf(ts).length;
    const refused = await privately(`alert resolve ${n} as nosie`, 'resolve-nosie');
    expect(String(refused.args.text)).toContain("Unknown reason 'nosie': use one of real, noise, duplicate, expected.");
    expect(await incident(n)).toEqual({ status: 'open', closed_reason: null, closed_by: null, closed_at: null });
    expect(updatesOf(ts)).toHaveLength(updates);

    const before = Date.now();
    const redrawn = await redrawnBy(ts, () => h.command(`alert resolve ${n} as noise`, { channel, responseId: 'resolve-noise' }));
    expect(blocksJson(redrawn.args)).toMatch(new RegExp(`Resolved as noise by <@${DEFAULT_USER_ID}> at \\d+ \\w+ \\d\\d:\\d\\d UTC`));
    expect(headerOf(redrawn.args)).toBe('✅ Alert: Crypto.com Exchange');
    expect(resolveMenu(redrawn)).toBeUndefined();
    const told = await h.fake.waitFor('response_url', (c) => c.id === 'resolve-noise', WAIT);
    expect(String(told.args.text)).toMatch(new RegExp(`Alert #${n}: Resolved as noise at`));
    const stored = await incident(n);
    expect(stored).toMatchObject({ status: 'resolved', closed_reason: 'noise', closed_by: 'fake.user' });
    expect(stored.closed_at!.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(stored.closed_at!.getTime()).toBeLessThanOrEqual(Date.now());

    // Now five, four of them noise: the level rule is flagged, with a line half as high again.
    const after = await ask('alert stats 30d', 'Alert rules over the last 30 days');
    expect(tableRows(after)[a]).toEqual(['Crypto.com Exchange', 'pol above 5%', '5', '4 min', '80% of 5', 'higher line: 7.5%']);
    expect(noteOf(after)).toContain(
      ` #${d}: mute it for a week, \`/pol alert mute rule ${d} 7d\`, or pause it, \`/pol alert pause ${d}\`. #${a}, a higher line: \`/pol alert add exchange:crypto-com when pol above 7.5%\`, then \`/pol alert remove ${a}\`.`,
    );

    // The window bounds what is counted.
    const week = await ask('alert stats 7d', 'Alert rules over the last 7 days');
    expect(tableRows(week)).toEqual({
      [a]: ['Crypto.com Exchange', 'pol above 5%', '2', '—', '100% of 2'],
      [b]: ['Maker', 'pol rises by 2pp in 7d', '1', '—', '0% of 1'],
      [c]: ['Chainlink', 'new red flag', '1', '—', '0% of 1'],
      [d]: ['Compound', 'rating below CCC', '0', '—', '—'],
    });
    const quarter = await ask('alert stats 90d', 'Alert rules over the last 90 days');
    expect(tableRows(quarter)[c]).toEqual(['Chainlink', 'new red flag', '7', '—', '57.1% of 7', 'mute or pause it']);

    const badWindow = await privately('alert stats 14d', 'stats-14d');
    expect(String(badWindow.args.text)).toContain("Unknown window '14d': use 7d or 30d or 90d.");
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
    // Written as that version wrote it, with only the columns it had.
    const [rule] = await oldDb.query<{ id: number }>(
      `INSERT INTO alert_rules (platform, workspace_id, channel_id, entities, condition, condition_text, every_sec, cooldown_sec,
                                created_by, created_at, next_check)
       VALUES ('slack', 'T0FAKE', $1, $2::jsonb, $3::jsonb, 'pol above 10%', 300, 0, $4, $5, $5) RETURNING id`,
      [
        channel,
        JSON.stringify([{ kind: 'exchange', slug: 'crypto-com', name: 'Crypto.com Exchange' }]),
        JSON.stringify({ kind: 'pol_above', threshold: 0.1 }),
        DEFAULT_USER_ID,
        new Date(),
      ],
    );
    await oldDb.query(`INSERT INTO alert_rule_entities (rule_id, kind, slug) VALUES ($1, 'exchange', 'crypto-com')`, [rule!.id]);
    const store = new AlertStore(oldDb);
    const ts = await slackDeliverer(h.slack).post(channel, { kind: 'text', title: '🔔 Alert: Crypto.com Exchange', text: 'Open' });
    const opened = Date.now() - 3_600_000;
    const [incident] = await oldDb.query<{ id: number }>(
      `INSERT INTO alert_incidents (rule_id, kind, slug, status, verdict, opened_at, updated_at, acknowledged_by, acknowledged_at,
                                    message_ref, delivery_state, delivered_at)
       VALUES ($1, 'exchange', 'crypto-com', 'acknowledged', $2::jsonb, $3, $3, 'tester-9c1', $3, $4, 'delivered', $3) RETURNING id`,
      [rule!.id, JSON.stringify({ holds: true, change: { from: '3.6%', to: '12.0%', trend: 'worse' } }), new Date(opened), ts],
    );
    const id = incident!.id;
    // What the old polbot's last check saw, so the next check judges against it.
    await oldDb.query(`UPDATE alert_rule_entities SET reading = $2::jsonb, holds = true, checked_at = $3 WHERE rule_id = $1`, [
      rule!.id,
      JSON.stringify({ at: Math.floor(opened / 1000), pol: 0.12, rating: null, flags: null, categories: null }),
      new Date(opened),
    ]);
    await oldDb.query('UPDATE alert_rules SET last_checked_at = $2 WHERE id = $1', [rule!.id, new Date(opened)]);

    // Everything after version 6 is applied, whichever versions come later.
    expect(await migrate(oldDb)).toEqual(MIGRATIONS.filter((m) => m.version > 6).map((m) => m.version));
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

describe('escalation in Slack', () => {
  /** The service's clock, moved on by the test: escalation waits are minutes and hours. */
  let clock = Date.now();
  let escDb: Db;
  let escalating: AlertService;
  let hook: FakeWebhook;
  let oncall: string;
  let head: string;

  beforeAll(async () => {
    hook = await startFakeWebhook();
    escDb = await openPglite();
    await migrate(escDb);
    const outbox = new Outbox({ db: escDb, destinations: [{ name: 'siem', kind: 'webhook', url: hook.url, secret: hook.secret }] });
    escalating = serviceOn(new AlertStore(escDb), { leaseMs: 60_000, now: () => clock, outbox });
    // The workspace's user groups, as an admin made them: Slack escapes their handles in /pol.
    oncall = h.fake.addUserGroup('risk-oncall');
    head = h.fake.addUserGroup('head-of-risk');
  });
  afterAll(async () => {
    h.core.ctx.alerts = service;
    await escDb.close();
    await hook.close();
  });

  /** A rule added by slash command, typed as a person types it (Slack escapes the groups), then checked once. */
  async function escalatingRule(slug: string, channel: string, escalate: string): Promise<{ id: number; line: number }> {
    h.core.ctx.alerts = escalating;
    const start = h.sim.store.exchange(slug)!.pol.at(-1)!;
    const line = Math.round((start + 0.02) * 1000) / 10;
    const id = await addRule(
      h.fake.asTyped(`alert add ${slug} when pol above ${line}% cooldown none escalate ${escalate} notify siem`),
      channel,
    );
    clock = Date.now() + 1_000;
    await escalating.tick();
    return { id, line };
  }

  /** Moves the simulator across the line and checks at once: the incident opens and its message is posted. */
  async function cross(slug: string, channel: string): Promise<{ message: RecordedCall; ts: string; incident: number }> {
    // Five points over the rule's line, two over where it stood.
    const pol = h.sim.store.exchange(slug)!.pol.at(-1)! + 0.07;
    await simMove(h.sim, { kind: 'exchange', slug, pol });
    h.core.upstream.source.cache.clear();
    await escDb.query('UPDATE alert_rules SET next_check = $1', [new Date(clock)]);
    expect(await escalating.tick()).toMatchObject({ posted: 1, escalated: 0 });
    const message = alertMessages(channel).at(-1)!;
    const [row] = await escDb.query<{ id: number }>('SELECT id FROM alert_incidents WHERE slug = $1 ORDER BY id DESC LIMIT 1', [slug]);
    return { message, ts: (message.response as { ts: string }).ts, incident: row!.id };
  }

  /** The service's clock `minutes` on, and one tick. */
  async function minutesOn(minutes: number) {
    clock += minutes * MINUTE;
    return escalating.tick();
  }

  const escalations = (channel: string, ts: string) =>
    posts(channel).filter((c) => c.args.thread_ts === ts && (headerOf(c.args) ?? '').startsWith('⏫ Escalated'));

  it('calls on the user group in the thread once the delay passes unacknowledged, then on the next, and tells the webhook', async () => {
    const channel = 'CESCAL001';
    const { id } = await escalatingRule('bitstamp', channel, 'after 15m to @risk-oncall then after 1h to @head-of-risk');
    // The rule keeps its steps, each group as Slack delivered it.
    expect((await escalating.store.getInChannel(id, 'slack', channel))?.escalation).toEqual([
      { afterSec: 900, group: { id: oncall, label: '@risk-oncall' } },
      { afterSec: 3600, group: { id: head, label: '@head-of-risk' } },
    ]);
    const added = topLevel(channel).find((c) => headerOf(c.args) === `Alert rule #${id} added`)!;
    expect(blocksJson(added.args)).toContain(
      'An alert still unacknowledged after 15 minutes calls on @risk-oncall in its thread, then @head-of-risk 1 hour later.',
    );
    // Saying so pings nobody: the reply names the groups in words.
    expect(JSON.stringify(added.args)).not.toContain('subteam');

    const { ts, incident } = await cross('bitstamp', channel);
    // Not yet: 14 minutes unacknowledged.
    expect((await minutesOn(14)).escalated).toBe(0);
    expect(escalations(channel, ts)).toEqual([]);

    // 15 minutes: one reply in the thread, which mentions the group so that Slack notifies it.
    expect((await minutesOn(1)).escalated).toBe(1);
    const [first, ...more] = escalations(channel, ts);
    expect(more).toEqual([]);
    expect(first!.args.text).toBe(
      `Still unacknowledged after 15 minutes: <!subteam^${oncall}>, please look. Alert #${incident}, step 1 of 2 · polbot escalation #1`,
    );
    expect(blocksJson(first!.args)).toContain(`Still unacknowledged after 15 minutes: <!subteam^${oncall}>, please look.`);
    expect(JSON.stringify(first!.args)).not.toMatch(/<@|<!(here|channel|everyone)|head-of-risk/);
    // The message itself says so, in words, redrawn in place.
    expect(blocksJson(updatesOf(ts).at(-1)!.args)).toContain('*Escalated*\\nto @risk-oncall');

    // Another replica ticking at the same moment finds nothing left to post.
    const other = serviceOn(new AlertStore(escDb), { now: () => clock, instanceId: 'replica-b' });
    const [a, b] = await Promise.all([escalating.tick(), other.tick()]);
    expect(a.escalated + b.escalated).toBe(0);
    expect(escalations(channel, ts)).toHaveLength(1);

    // The next step counts from the first: 59 minutes on, nothing; an hour on, the next group.
    expect((await minutesOn(59)).escalated).toBe(0);
    const [aa, bb] = await Promise.all([minutesOn(1), other.tick()]);
    expect(aa.escalated + bb.escalated).toBe(1);
    const replies = escalations(channel, ts);
    expect(replies).toHaveLength(2);
    expect(replies[1]!.args.text).toBe(
      `Still unacknowledged after 1 hour 15 minutes: <!subteam^${head}>, please look. Alert #${incident}, step 2 of 2 · polbot escalation #2`,
    );
    expect(blocksJson(updatesOf(ts).at(-1)!.args)).toContain('to @risk-oncall, then @head-of-risk');
    expect((await minutesOn(120)).escalated).toBe(0);
    expect(escalations(channel, ts)).toHaveLength(2);
    expect((await escalating.store.escalations(incident)).map((e) => e.state)).toEqual(['done', 'done']);

    // The webhook heard each step, signed (the receiver refuses anything else), each once.
    const escalated = hook.events().filter((e) => e.type === 'incident.escalated');
    expect(escalated.map((e) => e.deliveries)).toEqual([1, 1]);
    expect(JSON.parse(escalated[0]!.raw)).toMatchObject({
      type: 'incident.escalated',
      incident: { id: incident, status: 'open', entity: { kind: 'exchange', slug: 'bitstamp', name: 'Bitstamp' } },
      rule: { id, platform: 'slack', channel_id: channel },
      escalation: { step: 1, steps: 2, group: { id: oncall, label: '@risk-oncall' }, after_seconds: 900 },
    });
    expect(JSON.parse(escalated[1]!.raw)).toMatchObject({ escalation: { step: 2, group: { id: head, label: '@head-of-risk' } } });
    expect(hook.calls().every((c) => c.status === 200)).toBe(true);
  });

  it('stops when the alert is acknowledged before the delay: no reply, the steps stopped, nothing told', async () => {
    const channel = 'CESCAL002';
    await escalatingRule('bitfinex', channel, 'after 15m to @risk-oncall then after 1h to @head-of-risk');
    const { message, ts, incident } = await cross('bitfinex', channel);
    expect((await minutesOn(10)).escalated).toBe(0);
    const acknowledged = await click(message, 'Acknowledge', ts, channel);
    expect(blocksJson(acknowledged.args)).toContain(`Acknowledged by <@${DEFAULT_USER_ID}>`);
    expect((await minutesOn(10)).escalated).toBe(0);
    expect((await minutesOn(120)).escalated).toBe(0);
    expect(escalations(channel, ts)).toEqual([]);
    expect(posts(channel).filter((c) => JSON.stringify(c.args).includes('subteam'))).toEqual([]);
    expect((await escalating.store.escalations(incident)).map((e) => [e.state, e.reason])).toEqual([
      ['stopped', 'acknowledged'],
      ['stopped', 'acknowledged'],
    ]);
    expect(hook.events().filter((e) => e.type === 'incident.escalated' && (e.event.incident as { id: number }).id === incident)).toEqual(
      [],
    );
  });

  it('refuses a group that does not exist, a delay out of bounds and too many steps, and adds nothing', async () => {
    h.core.ctx.alerts = escalating;
    const channel = 'CESCAL003';
    const ask = async (typed: string, id: string) => {
      await h.command(h.fake.asTyped(typed), { channel, responseId: id });
      const answer = await h.fake.waitFor('response_url', (c) => c.id === id && !/Looking up/.test(String(c.args.text)), WAIT);
      return String(answer.args.text);
    };
    const rule = 'alert add bitstamp when pol above 60% escalate';
    expect(await ask(`${rule} after 15m to @risk-on-call`, 'no-group')).toBe(
      'There is no user group @risk-on-call in this workspace. Create it in Slack under People › User groups (a paid plan; your admins may have to), then add the rule again, picking the group from the list Slack offers as you type @.',
    );
    expect(await ask(`${rule} after 15m to @risk-oncall then after 1h to @nobody`, 'second-missing')).toMatch(
      /^There is no user group @nobody in this workspace\./,
    );
    expect(await ask(`${rule} after 400d to @risk-oncall`, 'too-long')).toBe(
      'An escalation step waits between 5 minutes and 24 hours, not 400d.',
    );
    expect(await ask(`${rule} after 1m to @risk-oncall`, 'too-short')).toBe(
      'An escalation step waits between 5 minutes and 24 hours, not 1m.',
    );
    expect(
      await ask(
        `${rule} after 15m to @risk-oncall then after 15m to @risk-oncall then after 15m to @head-of-risk then after 1h to @head-of-risk`,
        'four',
      ),
    ).toBe('An escalation has at most 3 steps; this one has 4.');
    expect(await ask(`${rule} after 15m to <@${DEFAULT_USER_ID}|fake.user>`, 'person')).toMatch(
      /^@fake\.user is a person: an escalation calls on a user group\./,
    );
    expect(await ask(`${rule} to @risk-oncall`, 'no-wait')).toBe(
      'Cannot read step 1 of the escalation: write it as after 15m to @group [then after 1h to @group].',
    );
    expect(await escalating.store.listChannel('slack', channel)).toEqual([]);
  });

  it('takes over a step whose replica died after posting it: the reply is found in the thread, and not posted again', async () => {
    const channel = 'CESCAL004';
    await escalatingRule('poloniex', channel, 'after 15m to @risk-oncall');
    const { ts, incident } = await cross('poloniex', channel);
    clock += 15 * MINUTE;
    // A replica claims the step and posts its reply, as the service does, and dies before recording it.
    const store = new AlertStore(escDb);
    const [due] = await store.claimEscalations({ now: clock, instance: 'dying', leaseMs: 60_000, limit: 10, platforms: ['slack'] });
    expect(await store.escalationFence(due!.id, 'dying', clock, 60_000)).toBe('go');
    await slackDeliverer(h.slack).followUp(channel, ts, escalationMessage({ incident: due!.incident, rule: due!.rule }, due!));
    expect(escalations(channel, ts)).toHaveLength(1);
    // Its lease keeps the step from others; once it runs out, the next claimer looks in the thread first.
    expect((await escalating.tick()).escalated).toBe(0);
    clock += 61_000;
    const searches = h.fake.calls('conversations.replies').length;
    expect(await escalating.tick()).toMatchObject({ escalated: 1, lost: 0 });
    expect(
      h.fake
        .calls('conversations.replies')
        .slice(searches)
        .map((c) => [c.args.ts, c.status]),
    ).toEqual([[ts, 200]]);
    expect(escalations(channel, ts)).toHaveLength(1);
    expect(await store.escalations(incident)).toMatchObject([{ state: 'done', attempts: 2, claimedBy: escalating.instanceId }]);
    // The dead replica's late record changes nothing.
    expect(await store.escalated(due!.id, 'dying', clock)).toBe(false);
  });

  it('lists each rule’s escalation', async () => {
    h.core.ctx.alerts = escalating;
    await h.command('alert list', { channel: 'CESCAL001' });
    const list = await h.fake.waitFor(
      'chat.postMessage',
      (c) => c.args.channel === 'CESCAL001' && /Alert rules in this channel/.test(headerOf(c.args) ?? ''),
      WAIT,
    );
    const [rule] = await escalating.store.listChannel('slack', 'CESCAL001');
    expect(blocksJson(list.args)).toContain(
      `Escalation while unacknowledged: #${rule!.id} after 15m @risk-oncall, then after 1h @head-of-risk.`,
    );
  });
});
