import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { Client, Events, GatewayIntentBits } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { type FakeDiscord, startFakeDiscord } from '../../fakes/discord/index.js';
import { type FakeSlack, startFakeSlack } from '../../fakes/slack/index.js';

/**
 * Each rule of the fake platforms, shown with a request Slack or Discord would refuse, and one
 * right at the limit that they accept. Requests go over HTTP as the real clients send them.
 */

const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
const button = (text: string, action_id: string) => ({ type: 'button', text: { type: 'plain_text', text }, action_id, value: 'x' });

describe('fake Slack refuses what Slack refuses', () => {
  let slack: FakeSlack;
  let limited: FakeSlack;
  let images: Server;
  let imageUrl = '';
  beforeAll(async () => {
    slack = await startFakeSlack();
    limited = await startFakeSlack({ rateLimits: true });
    images = createServer((req, res) => {
      if (req.url === '/chart.png') {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    imageUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await slack.close();
    await limited.close();
    await new Promise((resolve) => images.close(resolve));
  });

  const post = async (fake: FakeSlack, method: string, body: Record<string, unknown>) => {
    const res = await fetch(`${fake.url}${method}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.botToken}`, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify(body),
    });
    return {
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      body: (await res.json()) as { ok: boolean; error?: string; errors?: string[] },
    };
  };
  const message = (blocks: unknown[], channel = 'C1') => ({ channel, text: 'fallback', blocks });

  it('holds Block Kit limits on every message: blocks, section text, fields, button text, header, unique action ids', async () => {
    const cases: [string, unknown[], unknown[]][] = [
      ['50 blocks', Array.from({ length: 51 }, () => section('x')), Array.from({ length: 50 }, () => section('x'))],
      ['3000 characters of section text', [section('x'.repeat(3001))], [section('x'.repeat(3000))]],
      [
        '10 fields',
        [{ type: 'section', fields: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'f' })) }],
        [{ type: 'section', fields: Array.from({ length: 10 }, () => ({ type: 'mrkdwn', text: 'f' })) }],
      ],
      [
        '75 characters of button text',
        [{ type: 'actions', elements: [button('b'.repeat(76), 'a1')] }],
        [{ type: 'actions', elements: [button('b'.repeat(75), 'a1')] }],
      ],
      [
        'unique action ids',
        [{ type: 'actions', elements: [button('one', 'same'), button('two', 'same')] }],
        [{ type: 'actions', elements: [button('one', 'a1'), button('two', 'a2')] }],
      ],
      [
        '150 characters of header',
        [{ type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } }],
        [{ type: 'header', text: { type: 'plain_text', text: 'h'.repeat(150) } }],
      ],
    ];
    for (const [what, over, at] of cases) {
      for (const method of ['chat.postMessage', 'chat.postEphemeral']) {
        const refused = await post(slack, method, { ...message(over), user: 'U1' });
        expect(refused.body, `${method}: over ${what}`).toMatchObject({ ok: false, error: 'invalid_blocks' });
        expect(refused.body.errors?.[0], what).toMatch(/\[json-pointer:\/blocks/);
        expect((await post(slack, method, { ...message(at), user: 'U1' })).body.ok, `${method}: at ${what}`).toBe(true);
      }
    }
  });

  it('refuses a message whose image Slack cannot download', async () => {
    const image = (url: string) => [{ type: 'image', image_url: url, alt_text: 'chart' }];
    const refused = await post(slack, 'chat.postMessage', message(image(`${imageUrl}/missing.png`)));
    expect(refused.body).toMatchObject({
      ok: false,
      error: 'invalid_blocks',
      errors: ['[ERROR] downloading image failed [json-pointer:/blocks/0/image_url]'],
    });
    expect((await post(slack, 'chat.postMessage', message(image(`${imageUrl}/chart.png`)))).body.ok).toBe(true);
  });

  it('takes five posts on a response_url, and none after thirty minutes', async () => {
    const send = (url: string, blocks: unknown[] = [section('hi')]) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'hi', blocks }) }).then(
        async (r) => ({ status: r.status, body: await r.text() }),
      );
    const url = slack.responseUrl();
    for (let i = 0; i < 5; i++) expect((await send(url)).status, `use ${i + 1}`).toBe(200);
    expect(await send(url)).toEqual({ status: 404, body: 'used_url' });

    const stale = slack.responseUrl();
    expect(
      (
        await send(
          stale,
          Array.from({ length: 51 }, () => section('x')),
        )
      ).status,
    ).toBe(400);
    slack.advanceClock(30 * 60 * 1000 + 1);
    expect(await send(stale)).toEqual({ status: 404, body: 'expired_url' });
  });

  it('reads channel history as Slack does: newest first, 100 a page unless asked, a cursor to the next, no thread replies, only with channels:history', async () => {
    // Read methods take form-encoded arguments, as the Web API clients send them.
    const history = (fake: FakeSlack, args: Record<string, string>, token = fake.botToken) =>
      fetch(`${fake.url}conversations.history`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(args).toString(),
      }).then(
        async (r) =>
          (await r.json()) as {
            ok: boolean;
            error?: string;
            needed?: string;
            has_more?: boolean;
            messages?: { text: string; ts: string }[];
            response_metadata?: { next_cursor?: string };
          },
      );
    const texts = (r: { messages?: { text: string }[] }) => r.messages?.map((m) => m.text);

    const first = await post(slack, 'chat.postMessage', { channel: 'C-HIST', text: 'one' });
    await post(slack, 'chat.postMessage', { channel: 'C-HIST', text: 'reply to one', thread_ts: (first.body as { ts?: string }).ts });
    await post(slack, 'chat.postMessage', { channel: 'C-HIST', text: 'two' });
    await post(slack, 'chat.postMessage', { channel: 'C-HIST', text: 'three' });
    const page1 = await history(slack, { channel: 'C-HIST', limit: '2' });
    expect(page1).toMatchObject({ ok: true, has_more: true });
    expect(texts(page1)).toEqual(['three', 'two']);
    const page2 = await history(slack, { channel: 'C-HIST', limit: '2', cursor: page1.response_metadata!.next_cursor! });
    expect(page2).toMatchObject({ ok: true, has_more: false });
    expect(texts(page2)).toEqual(['one']);
    expect(await history(slack, { channel: 'C-HIST', cursor: 'bm90IGEgY3Vyc29y' })).toMatchObject({ ok: false, error: 'invalid_cursor' });

    for (let i = 0; i < 101; i++) await post(slack, 'chat.postMessage', { channel: 'C-BUSY-HISTORY', text: `m${i}` });
    const unasked = await history(slack, { channel: 'C-BUSY-HISTORY' });
    expect(unasked.messages).toHaveLength(100);
    expect(unasked).toMatchObject({ has_more: true });
    expect(texts(unasked)?.[0]).toBe('m100');
    expect((await history(slack, { channel: 'C-BUSY-HISTORY', limit: '200' })).messages).toHaveLength(101);

    expect(await history(slack, { channel: 'C-HIST' }, 'xoxb-not-the-bot-token')).toMatchObject({ ok: false, error: 'invalid_auth' });
    const unscoped = await startFakeSlack({ scopes: ['commands', 'chat:write', 'files:write'] });
    onTestFinished(() => unscoped.close());
    expect(await history(unscoped, { channel: 'C-HIST' })).toMatchObject({ ok: false, error: 'missing_scope', needed: 'channels:history' });
  });

  it('answers 429 with Retry-After past a rate tier, per channel for chat.postMessage', async () => {
    const results = [];
    for (let i = 0; i < 6; i++) results.push(await post(limited, 'chat.postMessage', message([section(`m${i}`)], 'C-BUSY')));
    expect(results.slice(0, 5).every((r) => r.body.ok)).toBe(true);
    expect(results[5]).toMatchObject({ status: 429, retryAfter: '1', body: { ok: false, error: 'ratelimited' } });
    // Another channel has a tier of its own.
    expect((await post(limited, 'chat.postMessage', message([section('elsewhere')], 'C-QUIET'))).body.ok).toBe(true);
  });
});

describe('fake Discord refuses what Discord refuses', () => {
  let discord: FakeDiscord;
  const GUILD = '1100000000000000009';
  beforeAll(async () => {
    discord = await startFakeDiscord({ guildIds: [GUILD], heartbeatIntervalMs: 300 });
  });
  afterAll(() => discord.close());

  const send = async (body: Record<string, unknown>) => {
    const channel = discord.channelIds[GUILD]!;
    const res = await fetch(`${discord.apiUrl}/v10/channels/${channel}/messages`, {
      method: 'POST',
      headers: { authorization: `Bot ${discord.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { code?: number; errors?: unknown } };
  };
  const row = (...components: unknown[]) => ({ type: 1, components });
  const btn = (id: string, label = 'b') => ({ type: 2, style: 2, custom_id: id, label });
  const select = (id: string, n: number) => ({
    type: 3,
    custom_id: id,
    options: Array.from({ length: n }, (_, i) => ({ label: `o${i}`, value: `v${i}` })),
  });

  it('holds component limits: rows, buttons per row, a select alone, custom ids, select options', async () => {
    const cases: [string, unknown[], unknown[]][] = [
      ['5 rows', Array.from({ length: 6 }, (_, i) => row(btn(`r${i}`))), Array.from({ length: 5 }, (_, i) => row(btn(`r${i}`)))],
      [
        '5 buttons in a row',
        [row(...Array.from({ length: 6 }, (_, i) => btn(`b${i}`)))],
        [row(...Array.from({ length: 5 }, (_, i) => btn(`b${i}`)))],
      ],
      ['a select alone in its row', [row(select('s', 2), btn('b'))], [row(select('s', 2)), row(btn('b'))]],
      ['100-character custom ids', [row(btn('x'.repeat(101)))], [row(btn('x'.repeat(100)))]],
      ['unique custom ids', [row(btn('same'), btn('same'))], [row(btn('one'), btn('two'))]],
      ['25 select options', [row(select('s', 26))], [row(select('s', 25))]],
    ];
    for (const [what, over, at] of cases) {
      const refused = await send({ content: 'x', components: over });
      expect(refused, `over ${what}`).toMatchObject({ status: 400, body: { code: 50035 } });
      expect((await send({ content: 'x', components: at })).status, `at ${what}`).toBe(200);
    }
  });

  it('holds embed limits: 6000 in all, 25 fields, title 256, description 4096, field value 1024', async () => {
    const field = (value: string) => ({ name: 'f', value });
    const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
      ['25 fields', { fields: Array.from({ length: 26 }, () => field('v')) }, { fields: Array.from({ length: 25 }, () => field('v')) }],
      ['a 256-character title', { title: 't'.repeat(257) }, { title: 't'.repeat(256) }],
      ['a 4096-character description', { description: 'd'.repeat(4097) }, { description: 'd'.repeat(4096) }],
      ['1024 characters of field value', { fields: [field('v'.repeat(1025))] }, { fields: [field('v'.repeat(1024))] }],
      [
        '6000 characters in all',
        { description: 'd'.repeat(4096), fields: [field('v'.repeat(1024)), field('v'.repeat(1024))] },
        { description: 'd'.repeat(3948), fields: [field('v'.repeat(1024)), field('v'.repeat(1024))] },
      ],
    ];
    for (const [what, over, at] of cases) {
      expect(await send({ embeds: [over] }), `over ${what}`).toMatchObject({ status: 400, body: { code: 50035 } });
      expect((await send({ embeds: [at] })).status, `at ${what}`).toBe(200);
    }
  });

  it('returns the first message for a repeated enforced nonce, posting nothing new, and holds a nonce to 25 characters', async () => {
    const first = await send({ content: 'once', nonce: 'n-0123456789', enforce_nonce: true });
    const again = await send({ content: 'once', nonce: 'n-0123456789', enforce_nonce: true });
    expect(first.status).toBe(200);
    expect((again.body as { id?: string }).id).toBe((first.body as { id?: string }).id);
    // Without enforce_nonce Discord only echoes the nonce; the same one makes a second message.
    const loose = await send({ content: 'twice', nonce: 'n-0123456789' });
    expect((loose.body as { id?: string }).id).not.toBe((first.body as { id?: string }).id);
    expect(await send({ content: 'x', nonce: 'n'.repeat(26), enforce_nonce: true })).toMatchObject({ status: 400, body: { code: 50035 } });
  });

  it('lists a channel’s messages as Discord does: newest first, 50 unless asked, 1 to 100 at a time, only with the bot token', async () => {
    const CHANNEL = '1200000000000000777';
    discord.addChannel(CHANNEL, GUILD, 'history');
    const list = (query: string, channel = CHANNEL, token = discord.token) =>
      fetch(`${discord.apiUrl}/v10/channels/${channel}/messages${query}`, { headers: { authorization: `Bot ${token}` } }).then(
        async (r) => ({
          status: r.status,
          body: (await r.json()) as { content: string }[] & { code?: number; errors?: unknown },
        }),
      );
    for (let i = 0; i < 51; i++) {
      const res = await fetch(`${discord.apiUrl}/v10/channels/${CHANNEL}/messages`, {
        method: 'POST',
        headers: { authorization: `Bot ${discord.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ content: `m${i}` }),
      });
      expect(res.status).toBe(200);
    }
    const unasked = await list('');
    expect(unasked.body.map((m) => m.content)).toEqual(Array.from({ length: 50 }, (_, i) => `m${50 - i}`));
    expect((await list('?limit=2')).body.map((m) => m.content)).toEqual(['m50', 'm49']);
    expect((await list('?limit=100')).body).toHaveLength(51);
    expect(await list('?limit=101')).toMatchObject({
      status: 400,
      body: { code: 50035, errors: { limit: { _errors: [{ code: 'NUMBER_TYPE_MAX' }] } } },
    });
    expect(await list('?limit=0')).toMatchObject({
      status: 400,
      body: { code: 50035, errors: { limit: { _errors: [{ code: 'NUMBER_TYPE_MIN' }] } } },
    });
    expect(await list('?limit=many')).toMatchObject({
      status: 400,
      body: { code: 50035, errors: { limit: { _errors: [{ code: 'NUMBER_TYPE_COERCE' }] } } },
    });
    expect(await list('', '1200000000000000404')).toMatchObject({ status: 404, body: { code: 10003 } });
    expect((await list('', CHANNEL, 'not-the-bot-token')).status).toBe(401);
  });

  const callback = (id: string, token: string, body: Record<string, unknown>) =>
    fetch(`${discord.apiUrl}/v10/interactions/${id}/${token}/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: (await r.json().catch(() => ({}))) as { code?: number } }));
  const editOriginal = (token: string, body: Record<string, unknown>) =>
    fetch(`${discord.apiUrl}/v10/webhooks/${discord.applicationId}/${token}/messages/@original`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as { code?: number } }));

  it('refuses a first response after 3 seconds (10062), and the token after 15 minutes (10015)', async () => {
    // Interactions reach a bot over its gateway session; this one only holds the session open.
    const client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: discord.apiUrl } });
    const ready = once(client, Events.ClientReady, { signal: AbortSignal.timeout(10_000) });
    await client.login(discord.token);
    await ready;
    onTestFinished(() => client.destroy());
    const late = discord.sendCommand({ name: 'pol', guildId: GUILD });
    discord.advanceClock(3_001);
    expect(await callback(late.id, late.token, { type: 5 })).toMatchObject({ status: 404, body: { code: 10062 } });

    const answered = discord.sendCommand({ name: 'pol', guildId: GUILD });
    expect((await callback(answered.id, answered.token, { type: 5 })).status).toBe(204);
    expect((await editOriginal(answered.token, { content: 'in time' })).status).toBe(200);
    discord.advanceClock(15 * 60 * 1000);
    expect(await editOriginal(answered.token, { content: 'too late' })).toMatchObject({ status: 404, body: { code: 10015 } });
  });
});
