import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { autoRetry } from '@grammyjs/auto-retry';
import { apiThrottler } from '@grammyjs/transformer-throttler';
import { createCanvas } from '@napi-rs/canvas';
import { Api, Bot, GrammyError, InputFile, webhookCallback } from 'grammy';
import type { Chat, InlineKeyboardMarkup, Message, Update, User } from 'grammy/types';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeTelegram, startFakeTelegram } from '../../fakes/telegram/index.js';

/**
 * Each rule of the fake Telegram Bot API, shown through the real grammY client: what Telegram
 * accepts is accepted and what it refuses is refused, in Telegram's own words.
 */

const BAD_OFFSET = (tag: string, at: number) => `Bad Request: can't parse entities: Unsupported start tag "${tag}" at byte offset ${at}`;

/** A real chart-sized PNG, so the fake reads a genuine header. */
const PNG = createCanvas(640, 360).encodeSync('png');

let fake: FakeTelegram;
let api: Api;
let ana: User;
let ben: User;
let group: Chat;

beforeAll(async () => {
  fake = await startFakeTelegram({ webhookRetryMs: 100 });
  api = new Api(fake.token, { apiRoot: fake.url });
  ana = fake.addUser({ first_name: 'Ana', username: 'ana_trades' });
  ben = fake.addUser({ first_name: 'Ben', language_code: 'ru' });
  group = fake.addGroup({ title: 'Risk desk', creator: ana, members: [ben] });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(async () => {
  // Each test starts with no update waiting and nothing recorded.
  const last = fake.pendingUpdates().at(-1);
  if (last) await api.getUpdates({ offset: last.update_id + 1 });
  fake.clear();
  fake.clearFaults();
  fake.enforceRateLimits(false);
});

/** The refusal a call ends in; fails the test when it succeeds. */
async function refusal(call: Promise<unknown>): Promise<GrammyError> {
  const outcome = await call.then(
    (value) => new Error(`expected a refusal, got ${JSON.stringify(value)}`),
    (error: unknown) => error,
  );
  if (!(outcome instanceof GrammyError)) throw outcome;
  return outcome;
}

const keyboard = (...rows: [string, string][][]): InlineKeyboardMarkup => ({
  inline_keyboard: rows.map((row) => row.map(([text, callback_data]) => ({ text, callback_data }))),
});

describe('the wire', () => {
  it('answers getMe for the token it holds, 401 for any other and 404 for a method it does not have', async () => {
    const me = await api.getMe();
    expect(me).toMatchObject({
      id: Number(fake.token.split(':')[0]),
      is_bot: true,
      username: 'polbot_test_bot',
      supports_inline_queries: true,
    });
    expect(me.can_read_all_group_messages).toBe(false);

    const wrong = await refusal(new Api(`${me.id}:AAwrong-secret-part-of-the-token-123`, { apiRoot: fake.url }).getMe());
    expect([wrong.error_code, wrong.description]).toEqual([401, 'Unauthorized']);
    const malformed = await refusal(new Api('not-a-token', { apiRoot: fake.url }).getMe());
    expect([malformed.error_code, malformed.description]).toEqual([401, 'Unauthorized: invalid token specified']);

    const missing = await refusal(
      (api.raw as unknown as Record<string, (p: object) => Promise<unknown>>).sendTelepathy!({ chat_id: ana.id }),
    );
    expect([missing.error_code, missing.description]).toEqual([404, 'Not Found']);
    expect(fake.calls('sendTelepathy')[0]).toMatchObject({ status: 404, ok: false });
  });

  it('takes method names in any case and parameters in the query string, as the Bot API server does', async () => {
    const res = await fetch(`${fake.url}/bot${fake.token}/SENDMESSAGE?chat_id=${ana.id}&text=hi%20there`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { ok: boolean; result: Message };
    expect(body.ok).toBe(true);
    expect(body.result.text).toBe('hi there');
  });
});

describe('text and caption limits, counted after entity parsing', () => {
  it('accepts 4,096 visible characters however many tags surround them, and refuses 4,097', async () => {
    const visible = 'a'.repeat(4090);
    const html = `<b>${visible.slice(0, 2000)}</b><i><u>${visible.slice(2000)}</u></i>&lt;&gt;&amp;&#65;&quot;Z`;
    expect(html.length).toBeGreaterThan(4096);
    const sent = await api.sendMessage(ana.id, html, { parse_mode: 'HTML' });
    expect(sent.text).toHaveLength(4096);
    expect(sent.text!.endsWith('<>&A"Z')).toBe(true);
    expect(sent.entities).toEqual([
      { type: 'bold', offset: 0, length: 2000 },
      { type: 'italic', offset: 2000, length: 2090 },
      { type: 'underline', offset: 2000, length: 2090 },
    ]);

    const tooLong = await refusal(api.sendMessage(ana.id, `<b>${'a'.repeat(4097)}</b>`, { parse_mode: 'HTML' }));
    expect([tooLong.error_code, tooLong.description]).toEqual([400, 'Bad Request: message is too long']);
    // Without a parse mode the tags are text, and count.
    const plain = await refusal(api.sendMessage(ana.id, `<b>${'a'.repeat(4090)}</b>`));
    expect(plain.description).toBe('Bad Request: message is too long');
  });

  it('holds a caption to 1,024 visible characters', async () => {
    const sent = await api.sendPhoto(ana.id, new InputFile(PNG, 'chart.png'), {
      caption: `<b>Binance</b> ${'x'.repeat(1016)}`,
      parse_mode: 'HTML',
    });
    expect(sent.caption).toHaveLength(1024);
    expect(sent.caption_entities).toEqual([{ type: 'bold', offset: 0, length: 7 }]);

    const refused = await refusal(
      api.sendPhoto(ana.id, new InputFile(PNG, 'chart.png'), { caption: `<i>${'x'.repeat(1025)}</i>`, parse_mode: 'HTML' }),
    );
    expect([refused.error_code, refused.description]).toEqual([400, 'Bad Request: message caption is too long']);
  });

  it('refuses an empty text and one that parses to nothing', async () => {
    expect((await refusal(api.sendMessage(ana.id, ''))).description).toBe('Bad Request: message text is empty');
    expect((await refusal(api.sendMessage(ana.id, '<b></b>\n', { parse_mode: 'HTML' }))).description).toBe(
      'Bad Request: message must be non-empty',
    );
  });
});

describe('HTML parse mode', () => {
  it('takes every tag Telegram allows and reports the entities at UTF-16 offsets', async () => {
    const html = [
      '<b>b</b><strong>s</strong><i>i</i><em>e</em><u>u</u><ins>n</ins><s>s</s><strike>k</strike><del>d</del>',
      '<span class="tg-spoiler">p</span><tg-spoiler>q</tg-spoiler><a href="https://example.com/?a=1&amp;b=2">link</a>',
      '<code>c</code><pre>pre</pre><pre><code class="language-ts">let x</code></pre>',
      '<blockquote>quote</blockquote><blockquote expandable>more</blockquote>😀<b>x</b>',
    ].join('');
    const sent = await api.sendMessage(ana.id, html, { parse_mode: 'HTML' });
    expect(sent.text).toBe('bsieunskdpqlinkcprelet xquotemore😀x');
    expect(sent.entities).toEqual([
      { type: 'bold', offset: 0, length: 1 },
      { type: 'bold', offset: 1, length: 1 },
      { type: 'italic', offset: 2, length: 1 },
      { type: 'italic', offset: 3, length: 1 },
      { type: 'underline', offset: 4, length: 1 },
      { type: 'underline', offset: 5, length: 1 },
      { type: 'strikethrough', offset: 6, length: 1 },
      { type: 'strikethrough', offset: 7, length: 1 },
      { type: 'strikethrough', offset: 8, length: 1 },
      { type: 'spoiler', offset: 9, length: 1 },
      { type: 'spoiler', offset: 10, length: 1 },
      { type: 'text_link', offset: 11, length: 4, url: 'https://example.com/?a=1&b=2' },
      { type: 'code', offset: 15, length: 1 },
      { type: 'pre', offset: 16, length: 3 },
      { type: 'pre', offset: 19, length: 5, language: 'ts' },
      { type: 'blockquote', offset: 24, length: 5 },
      { type: 'expandable_blockquote', offset: 29, length: 4 },
      // The emoji is two UTF-16 code units.
      { type: 'bold', offset: 35, length: 1 },
    ]);
  });

  it('refuses what does not parse, in the server words, with byte offsets counted in UTF-8', async () => {
    const cases: [string, string][] = [
      ['line<br>break', BAD_OFFSET('br', 4)],
      ['é <x>', BAD_OFFSET('x', 3)],
      ['price <$100 today', BAD_OFFSET('$100', 6)],
      ['<b>bold', `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "b"`],
      ['<b>x</i>', `Bad Request: can't parse entities: Unmatched end tag at byte offset 4, expected "</b>", found "</i>"`],
      ['x</b>', `Bad Request: can't parse entities: Unexpected end tag at byte offset 1`],
      ['<span>x</span>', `Bad Request: can't parse entities: Tag "span" must have class "tg-spoiler" at byte offset 0`],
      [
        '<a href>x</a>',
        `Bad Request: can't parse entities: Expected equal sign in declaration of an attribute of the tag "a" at byte offset 0`,
      ],
      ['<b', `Bad Request: can't parse entities: Unclosed start tag at byte offset 0`],
    ];
    for (const [html, description] of cases) {
      const refused = await refusal(api.sendMessage(ana.id, html, { parse_mode: 'HTML' }));
      expect([html, refused.error_code, refused.description]).toEqual([html, 400, description]);
    }
  });

  it('keeps an & that starts no known entity and a lone > as text, as Telegram does', async () => {
    const sent = await api.sendMessage(ana.id, 'AT&T &nbsp; 5 > 3 &lt;ok&gt;', { parse_mode: 'HTML' });
    expect(sent.text).toBe('AT&T &nbsp; 5 > 3 <ok>');
  });

  it('refuses a parse mode that does not exist', async () => {
    const refused = await refusal(api.sendMessage(ana.id, 'x', { parse_mode: 'XML' as 'HTML' }));
    expect(refused.description).toBe('Bad Request: unsupported parse_mode');
  });
});

describe('inline keyboards', () => {
  it('allows 64 bytes of callback_data and refuses 65, counting bytes, not characters', async () => {
    await api.sendMessage(ana.id, 'ascii 64', { reply_markup: keyboard([['ok', 'a'.repeat(64)]]) });
    await api.sendMessage(ana.id, 'é is two bytes', { reply_markup: keyboard([['ok', 'é'.repeat(32)]]) });

    const ascii = await refusal(api.sendMessage(ana.id, 'ascii 65', { reply_markup: keyboard([['no', 'a'.repeat(65)]]) }));
    expect([ascii.error_code, ascii.description]).toEqual([400, 'Bad Request: BUTTON_DATA_INVALID']);
    // 33 characters, 65 bytes.
    const accented = await refusal(api.sendMessage(ana.id, 'x', { reply_markup: keyboard([['no', `${'é'.repeat(32)}a`]]) }));
    expect(accented.description).toBe('Bad Request: BUTTON_DATA_INVALID');
    const emoji = await refusal(api.sendMessage(ana.id, 'x', { reply_markup: keyboard([['no', '🔥'.repeat(17)]]) }));
    expect(emoji.description).toBe('Bad Request: BUTTON_DATA_INVALID');
  });

  it('refuses a keyboard of the wrong shape before anything is sent', async () => {
    const flat = await refusal(
      api.sendMessage(ana.id, 'x', {
        reply_markup: { inline_keyboard: [{ text: 'a', callback_data: 'b' }] } as unknown as InlineKeyboardMarkup,
      }),
    );
    expect(flat.description).toBe('Bad Request: field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays');
    const textOnly = await refusal(
      api.sendMessage(ana.id, 'x', { reply_markup: { inline_keyboard: [[{ text: 'just text' }]] } as unknown as InlineKeyboardMarkup }),
    );
    expect(textOnly.description).toBe("Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard");
    const badUrl = await refusal(
      api.sendMessage(ana.id, 'x', { reply_markup: { inline_keyboard: [[{ text: 'site', url: 'javascript:alert(1)' }]] } }),
    );
    expect(badUrl.description).toBe('Bad Request: BUTTON_URL_INVALID');
    expect(fake.messages(ana.id).filter((m) => m.message.text === 'x')).toEqual([]);
  });
});

describe('callback queries', () => {
  it('delivers a press on a button of a message the bot sent, answerable once within its lifetime', async () => {
    const sent = await api.sendMessage(group.id, 'Which Binance?', {
      reply_markup: keyboard([
        ['Binance (exchange)', 'pick:exchange:binance'],
        ['Binance Coin', 'pick:project:bnb'],
      ]),
    });
    const { query, update } = fake.pressButton({ chatId: group.id, messageId: sent.message_id, from: ben, text: 'Binance Coin' });
    expect(query.data).toBe('pick:project:bnb');
    const [delivered] = await api.getUpdates({ offset: update!.update_id });
    expect(delivered?.callback_query).toMatchObject({
      id: query.id,
      data: 'pick:project:bnb',
      from: { id: ben.id },
      message: { message_id: sent.message_id },
    });

    await expect(api.answerCallbackQuery(query.id, { text: 'Looking up BNB…' })).resolves.toBe(true);
    expect(fake.callbackAnswers().at(-1)).toMatchObject({ queryId: query.id, text: 'Looking up BNB…', showAlert: false });
    const twice = await refusal(api.answerCallbackQuery(query.id));
    expect(twice.description).toBe('Bad Request: query is too old and response timeout expired or query ID is invalid');

    const late = fake.pressButton({ chatId: group.id, messageId: sent.message_id, from: ben, data: 'pick:exchange:binance' });
    fake.advanceClock(16_000);
    const expired = await refusal(api.answerCallbackQuery(late.query.id));
    expect([expired.error_code, expired.description]).toEqual([
      400,
      'Bad Request: query is too old and response timeout expired or query ID is invalid',
    ]);
    expect((await refusal(api.answerCallbackQuery('12345'))).error_code).toBe(400);
  });
});

describe('429 and flood control', () => {
  it('answers 429 with retry_after when a test asks, which @grammyjs/auto-retry waits out', async () => {
    fake.rateLimitNext('sendMessage', 1);
    const bare = await refusal(api.sendMessage(ana.id, 'no retry'));
    expect([bare.error_code, bare.description, bare.parameters]).toEqual([429, 'Too Many Requests: retry after 1', { retry_after: 1 }]);

    const patient = new Api(fake.token, { apiRoot: fake.url });
    patient.config.use(autoRetry());
    fake.rateLimitNext('sendMessage', 1);
    const started = Date.now();
    const sent = await patient.sendMessage(ana.id, 'after the wait');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(sent.text).toBe('after the wait');
    expect(fake.calls('sendMessage').map((c) => c.status)).toEqual([429, 429, 200]);

    fake.rateLimitNext('sendMessage', 7);
    const res = await fetch(`${fake.url}/bot${fake.token}/sendMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat_id: ana.id, text: 'x' }),
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(await res.json()).toEqual({
      ok: false,
      error_code: 429,
      description: 'Too Many Requests: retry after 7',
      parameters: { retry_after: 7 },
    });
  });

  it('refuses the 31st message within a second across chats and the 21st within a minute in one group', async () => {
    const people = Array.from({ length: 31 }, (_, i) => fake.addUser({ first_name: `P${i}` }));
    fake.enforceRateLimits(true);
    fake.advanceClock(60_000);
    for (const person of people.slice(0, 30)) await api.sendMessage(person.id, 'burst');
    const overall = await refusal(api.sendMessage(people[30]!.id, 'one too many'));
    expect([overall.error_code, overall.parameters.retry_after]).toEqual([429, 1]);

    fake.advanceClock(60_000);
    const desk = fake.addGroup({ title: 'Flood desk', creator: ana });
    for (let i = 0; i < 20; i += 1) {
      await api.sendMessage(desk.id, `alert ${i}`);
      fake.advanceClock(1_000);
    }
    const inGroup = await refusal(api.sendMessage(desk.id, 'alert 20'));
    expect(inGroup.error_code).toBe(429);
    expect(inGroup.description).toBe(`Too Many Requests: retry after ${inGroup.parameters.retry_after}`);
    expect(inGroup.parameters.retry_after).toBeGreaterThanOrEqual(34);
    expect(inGroup.parameters.retry_after).toBeLessThanOrEqual(35);
    fake.advanceClock(inGroup.parameters.retry_after! * 1000);
    await expect(api.sendMessage(desk.id, 'alert 20')).resolves.toMatchObject({ text: 'alert 20' });
  });

  it('lets a client paced by @grammyjs/transformer-throttler through: the limit is about 30 a second, not fewer', async () => {
    const people = Array.from({ length: 31 }, (_, i) => fake.addUser({ first_name: `Q${i}` }));
    fake.enforceRateLimits(true);
    fake.advanceClock(60_000);
    const paced = new Api(fake.token, { apiRoot: fake.url });
    paced.config.use(apiThrottler());
    await Promise.all(people.map((person) => paced.sendMessage(person.id, 'paced')));
    const sends = fake.calls('sendMessage');
    expect(sends.map((c) => c.status)).toEqual(Array(31).fill(200));
    expect(sends[30]!.at.getTime() - sends[0]!.at.getTime()).toBeGreaterThanOrEqual(900);
  });
});

describe('chats the bot cannot write to', () => {
  it('answers 403 for a user who blocked the bot or never started it, and for a group it was removed from', async () => {
    const carol = fake.addUser({ first_name: 'Carol' });
    fake.blockChat(carol.id);
    const blocked = await refusal(api.sendMessage(carol.id, 'digest'));
    expect([blocked.error_code, blocked.description]).toEqual([403, 'Forbidden: bot was blocked by the user']);
    expect((await refusal(api.sendChatAction(carol.id, 'typing'))).error_code).toBe(403);
    fake.unblockChat(carol.id);
    await expect(api.sendMessage(carol.id, 'welcome back')).resolves.toMatchObject({ chat: { id: carol.id } });

    const stranger = fake.addUser({ first_name: 'Dan', startedBot: false });
    const first = await refusal(api.sendMessage(stranger.id, 'hello'));
    expect([first.error_code, first.description]).toEqual([403, "Forbidden: bot can't initiate conversation with a user"]);

    const left = fake.addGroup({ title: 'Old desk', creator: ana });
    fake.blockChat(left.id);
    expect((await refusal(api.sendMessage(left.id, 'x'))).description).toBe('Forbidden: bot was kicked from the supergroup chat');
  });

  it('answers "chat not found" for a deleted or unknown chat, and names the new id of an upgraded group', async () => {
    const gone = fake.addGroup({ title: 'Gone', creator: ana });
    fake.deleteChat(gone.id);
    const deleted = await refusal(api.sendMessage(gone.id, 'x'));
    expect([deleted.error_code, deleted.description]).toEqual([400, 'Bad Request: chat not found']);
    expect((await refusal(api.sendMessage(-1009999999999, 'x'))).description).toBe('Bad Request: chat not found');

    const basic = fake.addGroup({ title: 'Small desk', type: 'group', creator: ana });
    expect(basic.id).toBeLessThan(0);
    expect(String(basic.id).startsWith('-100')).toBe(false);
    const upgraded = fake.migrateChat(basic.id);
    const moved = await refusal(api.sendMessage(basic.id, 'x'));
    expect([moved.description, moved.parameters]).toEqual([
      'Bad Request: group chat was upgraded to a supergroup chat',
      { migrate_to_chat_id: upgraded.id },
    ]);
    await expect(api.sendMessage(upgraded.id, 'x')).resolves.toMatchObject({ chat: { id: upgraded.id, type: 'supergroup' } });
    // The bot hears of it in both chats, in privacy mode too.
    const notices = fake
      .pendingUpdates()
      .map((u) => u.message as { chat: { id: number }; migrate_to_chat_id?: number; migrate_from_chat_id?: number });
    expect(notices.slice(-2).map((m) => [m.chat.id, m.migrate_to_chat_id ?? m.migrate_from_chat_id])).toEqual([
      [basic.id, upgraded.id],
      [upgraded.id, basic.id],
    ]);
  });
});

describe('edits, deletions and replies', () => {
  it('edits a caption in place, refuses an identical edit and a message that does not exist', async () => {
    const card = await api.sendPhoto(group.id, new InputFile(PNG, 'chart.png'), {
      caption: '<b>Alert</b> PoL above 5%',
      parse_mode: 'HTML',
      reply_markup: keyboard([['Acknowledge', 'ack:7']]),
    });
    const edited = await api.editMessageCaption(group.id, card.message_id, {
      caption: '<b>Alert</b> PoL above 5% · acknowledged by Ana',
      parse_mode: 'HTML',
      reply_markup: keyboard([['Resolve', 'resolve:7']]),
    });
    expect(edited).toMatchObject({ message_id: card.message_id, caption: 'Alert PoL above 5% · acknowledged by Ana' });
    expect((edited as Message).edit_date).toBeTypeOf('number');
    const stored = fake.messages(group.id).find((m) => m.messageId === card.message_id)!;
    expect(stored.message.caption).toBe('Alert PoL above 5% · acknowledged by Ana');
    expect(stored.message.reply_markup).toEqual(keyboard([['Resolve', 'resolve:7']]));
    expect(stored.versions.map((v) => v.caption)).toEqual(['Alert PoL above 5%']);

    const same = await refusal(
      api.editMessageCaption(group.id, card.message_id, {
        caption: '<b>Alert</b> PoL above 5% · acknowledged by Ana',
        parse_mode: 'HTML',
        reply_markup: keyboard([['Resolve', 'resolve:7']]),
      }),
    );
    expect(same.description.startsWith('Bad Request: message is not modified')).toBe(true);
    const missing = await refusal(api.editMessageCaption(group.id, 999_999, { caption: 'x' }));
    expect([missing.error_code, missing.description]).toEqual([400, 'Bad Request: message to edit not found']);
    const wrongKind = await refusal(api.editMessageText(group.id, card.message_id, 'text'));
    expect(wrongKind.description).toBe('Bad Request: there is no text in the message to edit');
  });

  it('drops the keyboard of a text edited without reply_markup, as Telegram does', async () => {
    const sent = await api.sendMessage(ana.id, 'Digest', { reply_markup: keyboard([['Pause', 'pause:1']]) });
    const edited = await api.editMessageText(ana.id, sent.message_id, 'Digest (paused)');
    expect((edited as Message).reply_markup).toBeUndefined();
    const again = await api.editMessageReplyMarkup(ana.id, sent.message_id, { reply_markup: keyboard([['Resume', 'resume:1']]) });
    expect((again as Message).text).toBe('Digest (paused)');
    expect(
      (await refusal(api.editMessageReplyMarkup(ana.id, sent.message_id, { reply_markup: keyboard([['Resume', 'resume:1']]) })))
        .description,
    ).toMatch(/^Bad Request: message is not modified/);
  });

  it('refuses a reply to a message that does not exist, unless told to send without it', async () => {
    const missing = await refusal(api.sendMessage(group.id, 'follow-up', { reply_parameters: { message_id: 424_242 } }));
    expect(missing.description).toBe('Bad Request: message to be replied not found');
    const sent = await api.sendMessage(group.id, 'follow-up', {
      reply_parameters: { message_id: 424_242, allow_sending_without_reply: true },
    });
    expect(sent.reply_to_message).toBeUndefined();

    const alert = await api.sendMessage(group.id, 'alert');
    const followUp = await api.sendMessage(group.id, 'resolved', { reply_parameters: { message_id: alert.message_id } });
    expect(followUp.reply_to_message).toMatchObject({ message_id: alert.message_id, text: 'alert' });
  });

  it("deletes the bot's own message, and refuses one that is gone or someone else's in a group", async () => {
    const note = await api.sendMessage(group.id, 'Only you can see… (deleted in a minute)');
    await expect(api.deleteMessage(group.id, note.message_id)).resolves.toBe(true);
    expect(fake.messages(group.id).find((m) => m.messageId === note.message_id)?.deleted).toBe(true);
    expect((await refusal(api.deleteMessage(group.id, note.message_id))).description).toBe('Bad Request: message to delete not found');
    const said = fake.say({ chatId: group.id, from: ben, text: '/pol help' });
    expect((await refusal(api.deleteMessage(group.id, said.message.message_id))).description).toBe("Bad Request: message can't be deleted");
  });
});

describe('forum topics', () => {
  it('sends into a topic of a forum, and refuses a thread id anywhere else', async () => {
    const forum = fake.addGroup({ title: 'Alerts forum', forum: true, creator: ana, members: [ben] });
    const topic = fake.addTopic(forum.id, 'Exchanges');
    const sent = await api.sendMessage(forum.id, 'Digest for exchanges', { message_thread_id: topic });
    expect(sent).toMatchObject({ message_thread_id: topic, is_topic_message: true });
    expect(sent.reply_to_message).toMatchObject({ message_id: topic, forum_topic_created: { name: 'Exchanges' } });
    await expect(api.sendChatAction(forum.id, 'upload_photo', { message_thread_id: topic })).resolves.toBe(true);
    const reply = await api.sendMessage(forum.id, 'follow-up', { reply_parameters: { message_id: sent.message_id } });
    expect(reply.message_thread_id).toBe(topic);

    for (const [chatId, threadId] of [
      [group.id, topic],
      [forum.id, 9999],
      [forum.id, 1],
    ] as const) {
      const refused = await refusal(api.sendMessage(chatId, 'x', { message_thread_id: threadId }));
      expect([chatId, threadId, refused.description]).toEqual([chatId, threadId, 'Bad Request: message thread not found']);
    }
  });
});

describe('photos and files', () => {
  it('takes an uploaded PNG as multipart, gives it back in sizes, and serves it by getFile', async () => {
    const sent = await api.sendPhoto(ana.id, new InputFile(PNG, 'chart.png'));
    const call = fake.calls('sendPhoto').at(-1)!;
    expect(call.files).toHaveLength(1);
    expect(call.files[0]!.bytes.equals(PNG)).toBe(true);
    expect(sent.photo!.map((p) => [p.width, p.height])).toEqual([
      [90, 51],
      [320, 180],
      [640, 360],
    ]);
    const largest = sent.photo!.at(-1)!;
    expect(fake.fileBytes(largest.file_id)?.equals(PNG)).toBe(true);

    const file = await api.getFile(largest.file_id);
    const download = await fetch(`${fake.url}/file/bot${fake.token}/${file.file_path}`);
    expect(Buffer.from(await download.arrayBuffer()).equals(PNG)).toBe(true);

    const again = await api.sendPhoto(group.id, largest.file_id);
    expect(again.photo!.at(-1)!.file_id).toBe(largest.file_id);
    const notImage = await refusal(api.sendPhoto(ana.id, new InputFile(Buffer.from('not a picture'), 'chart.png')));
    expect(notImage.description).toBe('Bad Request: IMAGE_PROCESS_FAILED');
    expect((await refusal(api.sendPhoto(ana.id, 'no-such-file-id'))).description).toBe(
      'Bad Request: wrong file identifier/HTTP URL specified',
    );
  });
});

describe('documents', () => {
  it('takes an uploaded document with its name and caption, and refuses an empty one', async () => {
    const csv = Buffer.from('name,pol\nKraken,0.0133\n');
    const sent = await api.sendDocument(group.id, new InputFile(csv, 'assets-kraken.csv'), {
      caption: 'All <b>53</b>',
      parse_mode: 'HTML',
    });
    expect(sent.document).toMatchObject({ file_name: 'assets-kraken.csv', file_size: csv.length });
    expect(sent.caption).toBe('All 53');
    expect(fake.fileBytes(sent.document!.file_id)?.equals(csv)).toBe(true);
    const empty = await refusal(api.sendDocument(ana.id, new InputFile(Buffer.alloc(0), 'empty.csv')));
    expect(empty.description).toBe('Bad Request: file must be non-empty');
    const byId = await refusal(api.sendDocument(ana.id, sent.document!.file_id));
    expect(byId.description).toContain('does not implement');
  });
});

describe('members and commands', () => {
  it('answers getChatMember with creator, administrator, member or left', async () => {
    const desk = fake.addGroup({ title: 'Managers', creator: ana, administrators: [ben] });
    const outsider = fake.addUser();
    expect((await api.getChatMember(desk.id, ana.id)).status).toBe('creator');
    expect(await api.getChatMember(desk.id, ben.id)).toMatchObject({ status: 'administrator', can_manage_chat: true });
    fake.setMember(desk.id, ben, 'member');
    expect((await api.getChatMember(desk.id, ben.id)).status).toBe('member');
    expect((await api.getChatMember(desk.id, outsider.id)).status).toBe('left');
    expect((await api.getChatMember(ana.id, ana.id)).status).toBe('member');
  });

  it('keeps a description and a short description per language, each within its length', async () => {
    await api.setMyDescription('Crypto risk at a glance.');
    await api.setMyShortDescription('Risiko auf einen Blick', { language_code: 'de' });
    expect((await api.getMyDescription()).description).toBe('Crypto risk at a glance.');
    expect((await api.getMyDescription({ language_code: 'de' })).description).toBe('');
    expect((await api.getMyShortDescription({ language_code: 'de' })).short_description).toBe('Risiko auf einen Blick');
    expect(fake.description('short', 'de')).toBe('Risiko auf einen Blick');
    expect((await refusal(api.setMyDescription('x'.repeat(513)))).description).toBe('Bad Request: description is too long');
    expect((await refusal(api.setMyShortDescription('x'.repeat(121)))).description).toBe('Bad Request: short description is too long');
    await api.setMyDescription('');
    expect(fake.description('long')).toBe('');
  });

  it('keeps a command list per scope and language, and answers exactly the one asked for', async () => {
    await api.setMyCommands([{ command: 'pol', description: 'Risk of a project or exchange' }]);
    await api.setMyCommands([{ command: 'pol', description: 'Риск проекта или биржи' }], { language_code: 'ru' });
    await api.setMyCommands([{ command: 'pol', description: 'Risk, for this desk' }], { scope: { type: 'chat', chat_id: group.id } });

    expect(await api.getMyCommands()).toEqual([{ command: 'pol', description: 'Risk of a project or exchange' }]);
    expect(await api.getMyCommands({ language_code: 'ru' })).toEqual([{ command: 'pol', description: 'Риск проекта или биржи' }]);
    expect(await api.getMyCommands({ language_code: 'de' })).toEqual([]);
    expect(await api.getMyCommands({ scope: { type: 'chat', chat_id: group.id } })).toEqual([
      { command: 'pol', description: 'Risk, for this desk' },
    ]);
    expect(fake.commands({ type: 'default' }, 'ru')).toEqual([{ command: 'pol', description: 'Риск проекта или биржи' }]);
    expect(fake.calls('setMyCommands')).toHaveLength(3);

    expect((await refusal(api.setMyCommands([{ command: 'Pol', description: 'x' }]))).description).toBe('Bad Request: BOT_COMMAND_INVALID');
    expect((await refusal(api.setMyCommands([{ command: 'pol', description: 'x' }], { language_code: 'eng' as 'en' }))).description).toBe(
      'Bad Request: invalid language code specified',
    );
    await api.deleteMyCommands({ language_code: 'ru' });
    expect(await api.getMyCommands({ language_code: 'ru' })).toEqual([]);
  });
});

describe('long polling', () => {
  it('delivers queued updates to a grammY bot in order, and confirms them', async () => {
    const bot = new Bot(fake.token, { client: { apiRoot: fake.url } });
    const seen: string[] = [];
    let done!: () => void;
    const all = new Promise<void>((resolve) => {
      done = resolve;
    });
    bot.on('message:text', (ctx) => {
      seen.push(ctx.message.text);
      if (seen.length === 5) done();
    });
    for (const text of ['/pol binance', '/pol uniswap', '/pol aave']) fake.say({ chatId: ana.id, from: ana, text });
    const running = bot.start({ timeout: 5 });
    await fake.waitFor((c) => c.method === 'getUpdates' && c.ok && (c.result as Update[]).length > 0);
    fake.say({ chatId: ana.id, from: ana, text: '/pol lido' });
    fake.say({ chatId: ana.id, from: ana, text: '/pol curve' });
    await all;
    await bot.stop();
    await running;
    expect(seen).toEqual(['/pol binance', '/pol uniswap', '/pol aave', '/pol lido', '/pol curve']);
    expect(fake.pendingUpdates()).toEqual([]);
    expect(fake.calls('deleteWebhook')).toHaveLength(1);
  });

  it('waits for the timeout when nothing comes, and ends a waiting poll with 409 when another starts', async () => {
    const started = Date.now();
    expect(await api.getUpdates({ timeout: 1 })).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);

    const first = refusal(api.getUpdates({ timeout: 10 }));
    // A call is recorded when answered; give the first one time to arrive and wait.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await api.getUpdates({ timeout: 0 });
    const ended = await first;
    expect([ended.error_code, ended.description]).toEqual([
      409,
      'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
    ]);
  });

  it('keeps from a bot in privacy mode what a group says unless it is a command for it or a reply to it', async () => {
    const plain = fake.say({ chatId: group.id, from: ben, text: 'anyone looked at binance?' });
    expect(plain.update).toBeUndefined();
    const other = fake.say({ chatId: group.id, from: ben, text: '/pol@some_other_bot binance' });
    expect(other.update).toBeUndefined();
    const general = fake.say({ chatId: group.id, from: ben, text: '/pol binance' });
    expect(general.update).toBeDefined();
    const addressed = fake.say({ chatId: group.id, from: ben, text: '/pol@polbot_test_bot binance' });
    expect(addressed.message.entities).toEqual([{ type: 'bot_command', offset: 0, length: 20 }]);
    const card = await api.sendMessage(group.id, 'Binance card');
    const reply = fake.say({ chatId: group.id, from: ben, text: 'thanks', replyTo: card.message_id });
    expect(reply.update).toBeDefined();

    const updates = await api.getUpdates();
    expect(updates.map((u) => u.message?.text)).toEqual(['/pol binance', '/pol@polbot_test_bot binance', 'thanks']);
  });
});

describe('inline mode', () => {
  it('delivers an inline query and takes one answer of valid results within its lifetime', async () => {
    const { query, update } = fake.inlineQuery({ from: ana, query: 'binance', chatType: 'supergroup' });
    const [got] = await api.getUpdates({ offset: update!.update_id });
    expect(got?.inline_query).toMatchObject({ id: query.id, query: 'binance', chat_type: 'supergroup', from: { id: ana.id } });

    const article = (id: string, html: string) => ({
      type: 'article' as const,
      id,
      title: 'Binance (exchange)',
      input_message_content: { message_text: html, parse_mode: 'HTML' as const },
    });
    expect((await refusal(api.answerInlineQuery(query.id, [article('a', 'x'), article('a', 'y')]))).description).toBe(
      'Bad Request: RESULT_ID_DUPLICATE',
    );
    expect((await refusal(api.answerInlineQuery(query.id, [article('a', '<b>x')]))).description).toBe(
      `Bad Request: can't parse inline query result: Can't parse entities: Can't find end tag corresponding to start tag "b"`,
    );
    await expect(api.answerInlineQuery(query.id, [article('exchange:binance', '<b>Binance</b> PoL 2.1%')])).resolves.toBe(true);
    expect(fake.inlineAnswers().at(-1)).toMatchObject({ queryId: query.id, results: [{ id: 'exchange:binance' }] });
    expect((await refusal(api.answerInlineQuery(query.id, []))).description).toBe(
      'Bad Request: query is too old and response timeout expired or query ID is invalid',
    );
  });
});

describe('webhooks', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await api.deleteWebhook({ drop_pending_updates: true });
    fake.advanceClock(1_000);
    server?.closeAllConnections();
    if (server) await new Promise((resolve) => server!.close(resolve));
    server = undefined;
  });

  async function listen(bot: Bot, secretToken: string): Promise<string> {
    server = createServer(webhookCallback(bot, 'http', { secretToken }));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/telegram/webhook`;
  }

  it('POSTs each update to the webhook with the secret header, and refuses getUpdates meanwhile', async () => {
    const secret = 'hook_Secret-9f2c41d7e0';
    const bot = new Bot(fake.token, { client: { apiRoot: fake.url } });
    const got: string[] = [];
    bot.on('message:text', (ctx) => {
      got.push(ctx.message.text);
    });
    const url = await listen(bot, secret);
    const set = await api.setWebhook(url, { secret_token: secret });
    expect(set).toBe(true);
    expect(fake.calls('setWebhook').at(-1)?.description).toBe('Webhook was set');

    fake.say({ chatId: ana.id, from: ana, text: '/pol binance' });
    fake.say({ chatId: ana.id, from: ana, text: '/pol aave' });
    await expect.poll(() => got, { timeout: 5_000 }).toEqual(['/pol binance', '/pol aave']);
    const deliveries = fake.webhookDeliveries().slice(-2);
    expect(deliveries.map((d) => [d.status, d.headers['x-telegram-bot-api-secret-token']])).toEqual([
      [200, secret],
      [200, secret],
    ]);
    expect(await api.getWebhookInfo()).toMatchObject({ url, pending_update_count: 0, has_custom_certificate: false });

    const polled = await refusal(api.getUpdates());
    expect([polled.error_code, polled.description]).toEqual([
      409,
      "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
    ]);
  });

  it('keeps an update the webhook refused, says why in getWebhookInfo, and sends it again until it is taken', async () => {
    const bot = new Bot(fake.token, { client: { apiRoot: fake.url } });
    const got: string[] = [];
    bot.on('message:text', (ctx) => {
      got.push(ctx.message.text);
    });
    const url = await listen(bot, 'the-secret-the-receiver-expects');
    fake.advanceClock(1_000);
    await api.setWebhook(url, { secret_token: 'a-different-secret' });
    fake.say({ chatId: ana.id, from: ana, text: '/pol lido' });
    await expect.poll(() => fake.webhookDeliveries().filter((d) => d.status === 401).length, { timeout: 5_000 }).toBeGreaterThanOrEqual(2);
    const info = await api.getWebhookInfo();
    expect(info).toMatchObject({ pending_update_count: 1, last_error_message: 'Wrong response from the webhook: 401 Unauthorized' });
    expect(got).toEqual([]);

    // setWebhook twice within a second is refused with 429, as on Telegram.
    const hurried = await refusal(api.setWebhook(url, { secret_token: 'the-secret-the-receiver-expects' }));
    expect(hurried.error_code).toBe(429);
    fake.advanceClock(1_000);
    await api.setWebhook(url, { secret_token: 'the-secret-the-receiver-expects' });
    await expect.poll(() => got, { timeout: 5_000 }).toEqual(['/pol lido']);
  });

  it('runs a method the webhook answers with, as Telegram runs webhook replies', async () => {
    const bot = new Bot(fake.token, { client: { apiRoot: fake.url, canUseWebhookReply: (method) => method === 'sendMessage' } });
    bot.on('message:text', (ctx) => ctx.reply(`card for ${ctx.message.text.split(' ')[1]}`));
    const url = await listen(bot, 'reply-secret_01');
    fake.advanceClock(1_000);
    await api.setWebhook(url, { secret_token: 'reply-secret_01' });
    fake.say({ chatId: ben.id, from: ben, text: '/pol aave' });
    const reply = await fake.waitFor((c) => c.method === 'sendMessage' && c.via === 'webhook reply');
    expect(reply).toMatchObject({ ok: true, args: { chat_id: ben.id, text: 'card for aave' } });
    expect(fake.messages(ben.id).at(-1)?.message.text).toBe('card for aave');
  });
});
