import type { Message, User } from 'grammy/types';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../fakes/telegram/index.js';
import { MINUTE } from '../../helpers/alerts.js';
import { last } from '../../helpers/discord.js';
import { startTelegramParts, type TelegramParts, until } from '../../helpers/telegram.js';
import { polText } from '../../helpers/truth.js';

/**
 * Digests and alerts in Telegram through the product's own services and the Telegram deliverer:
 * into a group and a forum topic, edited in place from their buttons, followed up as replies, and
 * a chat that blocked polbot paused with the reason, as Slack and Discord channels are.
 */

const WAIT = 10_000;
let p: TelegramParts;
let ana: User;
let ben: User;
let group: number;
let forum: number;
let topic: number;

beforeAll(async () => {
  p = await startTelegramParts();
  ana = p.fake.addUser({ first_name: 'Ana', username: 'ana_risk' });
  ben = p.fake.addUser({ first_name: 'Ben' });
  forum = p.fake.addGroup({ title: 'Desk forum', creator: ana, members: [ben], forum: true }).id;
  topic = p.fake.addTopic(forum, 'Digests');
});
afterAll(async () => {
  await p?.close();
});
// A group of its own for each test: Telegram allows a bot 20 messages a minute in one group, and
// polbot keeps to it, so tests sharing one would wait on each other's minute.
beforeEach(() => {
  group = p.fake.addGroup({ title: 'Risk desk', creator: ana, members: [ben] }).id;
});

const botMessages = (chatId: number) => p.fake.messages(chatId).filter((m) => m.sender === 'bot' && !m.deleted);
const words = (m: FakeMessage) => (m.message as Message).text ?? (m.message as Message).caption ?? '';
const buttonsOf = (m: FakeMessage) =>
  (
    (m.message as { reply_markup?: { inline_keyboard: { text: string; callback_data?: string }[][] } }).reply_markup?.inline_keyboard ?? []
  ).flat();

/** Says a command and waits for the answer that replies to it. */
async function command(chatId: number, from: User, text: string, threadId?: number): Promise<FakeMessage> {
  const said = p.fake.say({ chatId, from, text, ...(threadId !== undefined ? { threadId } : {}) });
  return until(
    () => botMessages(chatId).find((m) => (m.message as Message).reply_to_message?.message_id === said.message.message_id),
    `the answer to ${text}`,
  );
}

const ruleIdOf = (m: FakeMessage) => Number(/Alert rule #(\d+) added/.exec(words(m))?.[1]);

describe('alerts', () => {
  it('posts an alert to the group, redraws it in place on acknowledge and resolve, and follows it up as a reply', async () => {
    const start = last(p.sim.exchange('kraken')!.pol);
    const line = Math.round((start + 0.02) * 1000) / 10;
    const ruleId = ruleIdOf(await command(group, ana, `/pol alert add kraken when pol above ${line}%`));
    expect(ruleId).toBeGreaterThan(0);
    expect(await p.alerts.store.getInChannel(ruleId, 'telegram', String(group))).toMatchObject({ channelId: String(group) });

    // The first check sees Kraken below the line; then the simulator moves it four points up.
    p.clock.now = Date.now() - 30 * MINUTE;
    await p.db.query('UPDATE alert_rules SET next_check = $1', [new Date(p.clock.now)]);
    expect((await p.alerts.tick()).check.rules).toBe(1);
    const to = start + 0.04;
    p.move({ kind: 'exchange', slug: 'kraken', pol: to });
    await p.db.query('UPDATE alert_rules SET next_check = $1', [new Date(p.clock.now)]);
    p.clock.now += 1_000;
    expect(await p.alerts.tick()).toMatchObject({ posted: 1 });

    const alert = await until(() => botMessages(group).find((m) => words(m).includes('Alert: Kraken')), 'the alert');
    expect((alert.message as Message).photo).toBeDefined();
    // Alert messages show PoL to one decimal, as in Slack and Discord.
    expect(words(alert)).toContain(`PoL worsened from ${(start * 100).toFixed(1)}% to ${(to * 100).toFixed(1)}%`);
    expect(words(alert)).toContain(`polbot alert #`);
    const ack = buttonsOf(alert).find((b) => b.text === 'Acknowledge')!;
    expect(ack).toBeDefined();

    // Ben presses Acknowledge: the same message now says so, and keeps its buttons.
    p.fake.pressButton({ chatId: group, messageId: alert.messageId, from: ben, data: ack.callback_data! });
    await until(
      () => words(p.fake.messages(group).find((m) => m.messageId === alert.messageId)!).includes('Acknowledged by'),
      'the redraw',
    );
    const redrawn = p.fake.messages(group).find((m) => m.messageId === alert.messageId)!;
    expect(redrawn.versions.length).toBeGreaterThanOrEqual(1);
    expect(words(redrawn)).toContain('Ben');
    expect(p.fake.calls('editMessageCaption').some((c) => c.ok && c.args.message_id === alert.messageId)).toBe(true);
    expect(buttonsOf(redrawn).some((b) => b.text === 'Noise')).toBe(true);

    // Kraken comes back below the line: the follow-up is a reply to the alert.
    p.move({ kind: 'exchange', slug: 'kraken', pol: start });
    await p.db.query('UPDATE alert_rules SET next_check = $1', [new Date(p.clock.now)]);
    p.clock.now += MINUTE;
    await p.alerts.tick();
    const followUp = await until(
      () => botMessages(group).find((m) => (m.message as Message).reply_to_message?.message_id === alert.messageId),
      'the follow-up',
    );
    expect(words(followUp)).toMatch(/back|cleared|below/i);

    expect(words(p.fake.messages(group).find((m) => m.messageId === alert.messageId)!)).toContain('Cleared by itself');

    // It crosses again: a new alert, resolved as noise from the buttons of its menu.
    p.move({ kind: 'exchange', slug: 'kraken', pol: to });
    // Past the rule's cooldown (an hour by default), so this is a new incident rather than a quiet one.
    p.clock.now += 90 * MINUTE;
    await p.db.query('UPDATE alert_rules SET next_check = $1', [new Date(p.clock.now)]);
    await p.alerts.tick();
    const second = await until(
      () => botMessages(group).find((m) => m.messageId > alert.messageId && words(m).includes('Alert: Kraken')),
      'the second alert',
    );
    const noise = buttonsOf(second).find((b) => b.text === 'Noise')!;
    p.fake.pressButton({ chatId: group, messageId: second.messageId, from: ana, data: noise.callback_data! });
    await until(
      () => words(p.fake.messages(group).find((m) => m.messageId === second.messageId)!).includes('Resolved as noise'),
      'resolved',
    );
  });

  it('escalates by mentioning the person named, in reply to the alert, when nobody acknowledges it', async () => {
    const start = last(p.sim.exchange('gemini')!.pol);
    const line = Math.round((start + 0.02) * 1000) / 10;
    const refused = await command(group, ana, `/pol alert add gemini when pol above ${line}% escalate after 15m to @everyone`);
    expect(words(refused)).toContain('name the person to call');
    const added = await command(group, ana, `/pol alert add gemini when pol above ${line}% escalate after 15m to @ben_oncall`);
    const ruleId = ruleIdOf(added);
    expect(words(added)).toContain('Telegram has no user groups');
    expect(await p.alerts.store.getInChannel(ruleId, 'telegram', String(group))).toMatchObject({
      escalation: [{ afterSec: 900, group: { id: 'ben_oncall', label: '@ben_oncall' } }],
    });
    p.clock.now += MINUTE;
    await p.db.query('UPDATE alert_rules SET next_check = $1 WHERE id = $2', [new Date(p.clock.now), ruleId]);
    await p.alerts.tick();
    p.move({ kind: 'exchange', slug: 'gemini', pol: start + 0.04 });
    await p.db.query('UPDATE alert_rules SET next_check = $1 WHERE id = $2', [new Date(p.clock.now), ruleId]);
    p.clock.now += 1_000;
    await p.alerts.tick();
    const alert = await until(() => botMessages(group).find((m) => words(m).includes('Alert: Gemini')), 'the alert');
    p.clock.now += 16 * MINUTE;
    await p.alerts.tick();
    const call = await until(
      () =>
        botMessages(group).find(
          (m) => (m.message as Message).reply_to_message?.message_id === alert.messageId && words(m).includes('ben_oncall'),
        ),
      'the escalation',
    );
    // Written live: no zero-width space keeps this mention from notifying.
    expect(words(call)).toContain('@ben_oncall');
  });

  it('posts a low-severity alert as one line of text, and redraws that text in place when it is snoozed', async () => {
    const start = last(p.sim.exchange('okx')!.pol);
    const line = Math.round((start + 0.02) * 1000) / 10;
    const ruleId = ruleIdOf(await command(group, ana, `/pol alert add okx when pol above ${line}% severity low`));
    p.clock.now += MINUTE;
    await p.db.query('UPDATE alert_rules SET next_check = $1 WHERE id = $2', [new Date(p.clock.now), ruleId]);
    await p.alerts.tick();
    p.move({ kind: 'exchange', slug: 'okx', pol: start + 0.04 });
    await p.db.query('UPDATE alert_rules SET next_check = $1 WHERE id = $2', [new Date(p.clock.now), ruleId]);
    p.clock.now += 1_000;
    await p.alerts.tick();
    const alert = await until(
      () => botMessages(group).find((m) => words(m).includes('OKX') && words(m).includes('polbot alert #')),
      'the alert',
    );
    expect((alert.message as Message).photo).toBeUndefined();
    const snooze = buttonsOf(alert).find((b) => /^Snooze/.test(b.text))!;
    p.fake.pressButton({ chatId: group, messageId: alert.messageId, from: ben, data: snooze.callback_data! });
    await until(
      () => (p.fake.messages(group).find((m) => m.messageId === alert.messageId)!.versions.length > 0 ? true : undefined),
      'the redraw',
    );
    expect(words(p.fake.messages(group).find((m) => m.messageId === alert.messageId)!)).toMatch(/Snoozed/i);
    expect(p.fake.calls('editMessageText').some((c) => c.ok && c.args.message_id === alert.messageId)).toBe(true);
  });

  it('pauses the rules of a chat that blocked polbot, saying why', async () => {
    const start = last(p.sim.exchange('bitstamp')!.pol);
    const line = Math.round((start + 0.02) * 1000) / 10;
    const ruleId = ruleIdOf(await command(ben.id, ben, `/pol alert add bitstamp when pol above ${line}%`));
    p.clock.now += MINUTE;
    await p.db.query('UPDATE alert_rules SET next_check = $1 WHERE id = $2', [new Date(p.clock.now), ruleId]);
    await p.alerts.tick();
    p.fake.blockChat(ben.id);
    p.move({ kind: 'exchange', slug: 'bitstamp', pol: start + 0.04 });
    await p.db.query('UPDATE alert_rules SET next_check = $1 WHERE id = $2', [new Date(p.clock.now), ruleId]);
    p.clock.now += 1_000;
    await p.alerts.tick();
    const rule = await p.alerts.store.getInChannel(ruleId, 'telegram', String(ben.id));
    expect(rule).toMatchObject({ state: 'paused' });
    expect(rule?.stateReason).toContain('blocked polbot');
    p.fake.unblockChat(ben.id);
  });
});

describe('digests', () => {
  it('delivers a digest into the forum topic it was added in, and waits out a 429', async () => {
    const added = await command(forum, ana, '/pol digest add kraken, aave daily at 09:00', topic);
    expect((added.message as Message).message_thread_id).toBe(topic);
    const id = Number(/#(\d+)/.exec(words(added))?.[1]);
    const [row] = await p.db.query<{ channel_id: string }>('SELECT channel_id FROM digests WHERE id = $1', [id]);
    expect(row?.channel_id).toBe(`${forum}/${topic}`);

    p.fake.rateLimitNext('sendPhoto', 1);
    p.fake.rateLimitNext('sendMessage', 1);
    const nine = new Date();
    nine.setUTCHours(9, 0, 0, 0);
    if (nine.getTime() <= Date.now()) nine.setUTCDate(nine.getUTCDate() + 1);
    const report = await p.digests.scheduler.tick(nine.getTime() + 1_000);
    expect(report.delivered).toBe(1);
    const digest = await until(() => botMessages(forum).find((m) => words(m).includes(`digest #${id}`)), 'the digest');
    expect((digest.message as Message).message_thread_id).toBe(topic);
    const text = botMessages(forum)
      .filter((m) => m.messageId >= digest.messageId - 1)
      .map(words)
      .join('\n');
    expect(text).toContain(polText(last(p.sim.exchange('kraken')!.pol)));
    expect(text).toContain(polText(last(p.sim.project('aave')!.pol)));
    expect(p.fake.calls((c) => c.status === 429).length).toBeGreaterThanOrEqual(1);

    // A replica that takes the run over finds the post by its key in what polbot recorded of it
    // (a bot cannot read the chat's history), and a key that was never posted is not found.
    const key = /digest #\d+ · [^\n]+/.exec(words(digest))![0];
    const ref = await p.handle.deliverer.find!(`${forum}/${topic}`, key);
    expect(ref).toMatch(new RegExp(`(^| )[pt]${digest.messageId}c?( |$)`));
    expect(
      await p.handle.deliverer.find!(
        `${forum}/${topic}`,
        key.replace(/#(\d+)/, (_, n: string) => `#${Number(n) + 100}`),
      ),
    ).toBeNull();
    expect(await p.handle.deliverer.find!(String(forum), key)).toBeNull();
  });

  it('follows a group that becomes a supergroup: its digests and rules move with it and are delivered there', async () => {
    const basic = p.fake.addGroup({ title: 'Small desk', type: 'group', creator: ana, members: [ben] }).id;
    const added = await command(basic, ana, '/pol digest add kraken daily at 09:00');
    const id = Number(/#(\d+)/.exec(words(added))?.[1]);
    const ruleId = ruleIdOf(await command(basic, ana, '/pol alert add kraken when pol above 90%'));
    const upgraded = p.fake.migrateChat(basic).id;
    const moved = async () =>
      (await p.db.query<{ channel_id: string }>('SELECT channel_id FROM digests WHERE id = $1', [id]))[0]?.channel_id;
    const deadline = Date.now() + WAIT;
    while ((await moved()) !== String(upgraded) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await moved()).toBe(String(upgraded));
    expect(await p.alerts.store.getInChannel(ruleId, 'telegram', String(upgraded))).toMatchObject({ state: 'active' });
    const nine = new Date();
    nine.setUTCHours(9, 0, 0, 0);
    if (nine.getTime() <= Date.now()) nine.setUTCDate(nine.getUTCDate() + 1);
    expect((await p.digests.scheduler.tick(nine.getTime() + 1_000)).delivered).toBeGreaterThanOrEqual(1);
    await until(() => botMessages(upgraded).find((m) => words(m).includes(`digest #${id}`)), 'the digest in the supergroup');
  });

  it('follows the new id when a delivery meets it before Telegram’s notice, and tries again there', async () => {
    const basic = p.fake.addGroup({ title: 'Quiet desk', type: 'group', creator: ana }).id;
    const added = await command(basic, ana, '/pol digest add aave daily at 09:00');
    const id = Number(/#(\d+)/.exec(words(added))?.[1]);
    // Once Telegram's notices have moved it, the digest is put back on the old id, as if they had
    // been lost: only the refusal of the old id tells polbot now.
    const upgraded = p.fake.migrateChat(basic).id;
    const deadline = Date.now() + WAIT;
    while (p.fake.pendingUpdates().length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await p.handle.adapter.drain();
    await p.db.query('UPDATE digests SET channel_id = $1 WHERE id = $2', [String(basic), id]);
    const failed = await p.handle.deliverer.post(String(basic), { kind: 'text', text: 'hello' }).then(
      () => undefined,
      (err: unknown) => err as { permanent: boolean; reason: string },
    );
    expect(failed).toMatchObject({ permanent: false, reason: expect.stringContaining(String(upgraded)) });
    const [row] = await p.db.query<{ channel_id: string }>('SELECT channel_id FROM digests WHERE id = $1', [id]);
    expect(row?.channel_id).toBe(String(upgraded));
  });

  it('pauses the digests of a deleted group, saying why', async () => {
    const doomed = p.fake.addGroup({ title: 'Old desk', creator: ana }).id;
    const added = await command(doomed, ana, '/pol digest add kraken daily at 09:00');
    const id = Number(/#(\d+)/.exec(words(added))?.[1]);
    p.fake.deleteChat(doomed);
    const nine = new Date();
    nine.setUTCHours(9, 0, 0, 0);
    if (nine.getTime() <= Date.now()) nine.setUTCDate(nine.getUTCDate() + 1);
    await p.digests.scheduler.tick(nine.getTime() + 1_000);
    const [row] = await p.db.query<{ state: string; state_reason: string }>('SELECT state, state_reason FROM digests WHERE id = $1', [id]);
    expect(row).toEqual({ state: 'failing', state_reason: expect.stringContaining('no longer exists') });
  });
});
