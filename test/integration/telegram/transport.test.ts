import type { Message, Update, User } from 'grammy/types';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_LISTS, DESCRIPTIONS, telegram } from '../../../adapters/telegram/index.js';
import { openPglite } from '../../../src/db/connection.js';
import { demoCore } from '../../helpers/core.js';
import { memoryLogger } from '../../helpers/discord.js';
import { type FakeTelegram, startFakeTelegram } from '../../fakes/telegram/index.js';
import { freePort } from '../../helpers/compose.js';
import { createPostgresDatabase } from '../../helpers/digest/helpers.js';
import { last } from '../../helpers/discord.js';
import { startTelegramStack, type TelegramStack, until } from '../../helpers/telegram.js';
import { polText } from '../../helpers/truth.js';

/**
 * How updates reach polbot: long polling, and a webhook on polbot's own port whose secret is
 * checked on every request; two replicas behind one webhook run each update once; a restart keeps
 * the buttons working (long commands are in the database) and writes no command menu again.
 */

const SECRET = 'webhook-secret-of-the-test-0123456789';

const answersTo = (fake: FakeTelegram, chatId: number, messageId: number) =>
  fake.messages(chatId).filter((m) => m.sender === 'bot' && (m.message as Message).reply_to_message?.message_id === messageId);

describe('a restart', () => {
  let stack: TelegramStack;
  let ana: User;
  beforeAll(async () => {
    stack = await startTelegramStack();
    ana = stack.fake.addUser({ first_name: 'Ana' });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('writes the command menu and descriptions once per language, and nothing when it starts again unchanged', async () => {
    const { fake } = stack;
    expect(fake.commands()).toEqual(COMMAND_LISTS['']);
    expect(fake.commands(undefined, 'ru')).toEqual(COMMAND_LISTS.ru);
    expect(fake.commands(undefined, 'ru')[0]!.description).toMatch(/[а-я]/);
    expect(fake.calls('setMyCommands').filter((c) => c.ok)).toHaveLength(Object.keys(COMMAND_LISTS).length);
    // What an empty private chat shows, in the person's language where there is one.
    expect(fake.description('long')).toBe(DESCRIPTIONS['']!.description);
    expect(fake.description('long')).toContain('lower is safer');
    expect(fake.description('short', 'de')).toBe(DESCRIPTIONS.de!.short);
    expect(fake.calls('setMyDescription').filter((c) => c.ok)).toHaveLength(Object.keys(DESCRIPTIONS).length);
    fake.clear();
    await stack.restart();
    expect(fake.calls('getMyCommands').length).toBe(Object.keys(COMMAND_LISTS).length);
    expect(fake.calls('getMyDescription').length).toBe(Object.keys(DESCRIPTIONS).length);
    expect(fake.calls((c) => /^(setMyCommands|setMyDescription|setMyShortDescription)$/.test(c.method))).toEqual([]);
  });

  it('keeps a button whose command is too long for Telegram working after a restart', async () => {
    const { fake } = stack;
    const said = fake.say({ chatId: ana.id, from: ana, text: '/pol assets exchange:kraken category="Layer 1"' });
    const table = await until(() => answersTo(fake, ana.id, said.message.message_id)[0], 'the assets table');
    const buttons = (
      (table.message as { reply_markup?: { inline_keyboard: { text: string; callback_data?: string }[][] } }).reply_markup
        ?.inline_keyboard ?? []
    ).flat();
    // Sorting the filtered list by market cap does not fit 64 bytes: the button carries a key.
    const long = buttons.filter((b) => b.callback_data?.startsWith('c#'));
    expect(long.length).toBeGreaterThan(0);
    await stack.restart();
    const byCap = long.find((b) => /market cap/i.test(b.text)) ?? long[0]!;
    fake.pressButton({ chatId: ana.id, messageId: table.messageId, from: ana, data: byCap.callback_data! });
    const sorted = await until(
      () =>
        fake
          .messages(ana.id)
          .find(
            (m) => m.sender === 'bot' && m.messageId > table.messageId && /Assets listed on Kraken/.test((m.message as Message).text ?? ''),
          ),
      'the sorted table',
    );
    expect((sorted.message as Message).text).toContain('Layer 1');
    expect(fake.callbackAnswers().at(-1)?.text).toBeUndefined();
  });
});

describe('start-up', () => {
  it('stops with one line when the Bot API does not answer, rather than waiting for ever', async () => {
    const closed = await freePort();
    const core = await demoCore();
    const db = await openPglite();
    try {
      const { log, lines } = memoryLogger();
      const started = telegram({
        core,
        db,
        log,
        telegram: { token: '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0', apiUrl: `http://127.0.0.1:${closed}` },
        readyTimeoutMs: 500,
      }).start();
      await expect(started).rejects.toThrow(`Telegram: the Bot API (http://127.0.0.1:${closed}) did not answer within 0.5 s`);
      expect(lines.join('\n')).not.toContain('AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0');
    } finally {
      await db.close();
      await core.close();
    }
  });
});

describe('long polling', () => {
  it('says plainly when another process takes over polling the same bot, and reports it in the health', async () => {
    const first = await startTelegramStack();
    const second = await startTelegramStack({ shared: first.fake });
    try {
      // Telegram ends the older poll with 409 when a newer one starts; the runner cannot go on.
      await until(() => first.logLines.find((l) => l.includes('another process polls this bot (409 Conflict)')), 'the conflict said');
      expect(first.bot.health).toBeDefined();
      expect((await first.bot.health.report()).components.telegram).toMatchObject({ ok: false });
      // The newer one answers.
      const ana = first.fake.addUser({ first_name: 'Ana' });
      const said = first.fake.say({ chatId: ana.id, from: ana, text: '/pol kraken' });
      await until(() => answersTo(first.fake, ana.id, said.message.message_id)[0], 'the answer');
      expect(first.logLines.join('\n')).not.toContain(first.fake.token);
    } finally {
      await second.close();
      await first.close();
    }
  });
});

describe('a webhook', () => {
  let fake: FakeTelegram;
  let db: { url: string; drop(): Promise<void> };
  let replicas: TelegramStack[] = [];
  let endpoints: string[] = [];

  beforeAll(async () => {
    fake = await startFakeTelegram({ webhookRetryMs: 100 });
    db = await createPostgresDatabase();
    const ports = [await freePort(), await freePort()];
    endpoints = ports.map((port) => `http://127.0.0.1:${port}/telegram/webhook`);
    // Both replicas sit behind the first one's URL, as behind a load balancer; each checks the secret.
    replicas = await Promise.all(
      ports.map((port) =>
        startTelegramStack({
          shared: fake,
          env: { PORT: String(port), DATABASE_URL: db.url, TELEGRAM_WEBHOOK_URL: endpoints[0]!, TELEGRAM_WEBHOOK_SECRET: SECRET },
        }),
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await fake?.close();
    await db?.drop();
  });

  const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  it('is set with its secret, and the updates Telegram posts to it are answered', async () => {
    const set = fake.calls('setWebhook').filter((c) => c.ok);
    expect(set.length).toBeGreaterThanOrEqual(1);
    expect(set.every((c) => c.args.url === endpoints[0] && c.args.secret_token === SECRET)).toBe(true);
    const ana = fake.addUser({ first_name: 'Ana' });
    const said = fake.say({ chatId: ana.id, from: ana, text: '/pol kraken' });
    const card = await until(() => answersTo(fake, ana.id, said.message.message_id)[0], 'the card');
    expect((card.message as Message).caption).toContain(polText(last(replicas[0]!.bot.core.upstream.sim!.store.exchange('kraken')!.pol)));
    // The update is answered 200 once it has run (the card went out first).
    await until(() => fake.webhookDeliveries().find((d) => d.status === 200), 'the delivery answered');
  });

  it('refuses a request without the secret, or with another, and runs nothing', async () => {
    const ana = fake.addUser({ first_name: 'Forged' });
    const update = {
      update_id: 900_001,
      message: {
        message_id: 1,
        date: 1,
        chat: { id: ana.id, type: 'private', first_name: 'Forged' },
        from: ana,
        text: '/pol kraken',
        entities: [{ type: 'bot_command', offset: 0, length: 4 }],
      },
    };
    const bare = await post(endpoints[1]!, update);
    expect(bare.statusCode).toBe(401);
    await bare.body.text();
    const wrong = await post(endpoints[1]!, update, { 'x-telegram-bot-api-secret-token': `${SECRET}x` });
    expect(wrong.statusCode).toBe(401);
    await wrong.body.text();
    const garbage = await request(endpoints[1]!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET },
      body: '{not json',
    });
    expect(garbage.statusCode).toBe(400);
    await garbage.body.text();
    await new Promise((r) => setTimeout(r, 500));
    expect(fake.calls((c) => /^send/.test(c.method) && c.args.chat_id === ana.id)).toEqual([]);
  });

  it('runs an update that reaches both replicas once', async () => {
    const ben = fake.addUser({ first_name: 'Ben' });
    // The update as Telegram would send it again after a lost answer, to each replica in turn.
    const said = fake.say({ chatId: ben.id, from: ben, text: '/pol aave' });
    const update = said.update as Update;
    const again = await Promise.all(endpoints.map((url) => post(url, update, { 'x-telegram-bot-api-secret-token': SECRET })));
    for (const r of again) {
      expect(r.statusCode).toBe(200);
      await r.body.text();
    }
    await until(() => answersTo(fake, ben.id, said.message.message_id)[0], 'the answer');
    await new Promise((r) => setTimeout(r, 1_500));
    expect(answersTo(fake, ben.id, said.message.message_id)).toHaveLength(1);
  });
});
