import type { AddressInfo } from 'node:net';
import { App, LogLevel, SocketModeReceiver, webApi, type BlockButtonAction } from '@slack/bolt';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import {
  blockActionsBody,
  blockActionsPayload,
  postToBolt,
  signSlackRequest,
  slashCommandBody,
  slashCommandPayload,
  startFakeSlack,
  type FakeSlack,
  type RecordedCall,
} from '../../fakes/slack/index.js';

const BOT_TOKEN = 'xoxb-1111-2222-testbottoken';
const APP_TOKEN = 'xapp-1-A0TESTAPP-3333-testapptoken';
const SIGNING_SECRET = 'test-signing-secret-8c1f';
const IDENTITY = {
  teamId: 'T0TEST0001',
  teamName: 'Polbot Test Workspace',
  teamDomain: 'polbot-test',
  botUserId: 'U0TESTBOT1',
  botUserName: 'polbot-test',
  botId: 'B0TESTBOT1',
  appId: 'A0TESTAPP1',
};
// Node timers are millisecond-granular and may fire a hair before a
// performance.now() interval of the same length has elapsed.
const TIMER_SLACK_MS = 15;
// Keeps client-side retries of network errors from outliving a failed test.
const FAST_RETRIES = { retries: 1, minTimeout: 0, maxTimeout: 1 };

let fake: FakeSlack;

/**
 * Bolt's own start-up auth.test sends the bot token in the request body as well as the header,
 * which the suite's secret check reports; the bot's identity is given instead, as polbot does.
 */
const KNOWN_BOT = { botId: IDENTITY.botId, botUserId: IDENTITY.botUserId, tokenVerificationEnabled: false } as const;

beforeAll(async () => {
  fake = await startFakeSlack({ botToken: BOT_TOKEN, appToken: APP_TOKEN, identity: IDENTITY });
});

afterAll(async () => {
  await fake.close();
});

beforeEach(() => {
  fake.clear();
  fake.clearFailures();
});

/** `null` builds a client without any token. */
function webClient(token: string | null = BOT_TOKEN): webApi.WebClient {
  return new webApi.WebClient(token ?? undefined, { slackApiUrl: fake.url, logLevel: webApi.LogLevel.ERROR, retryConfig: FAST_RETRIES });
}

describe('fake Slack Web API driven by the real @slack/web-api WebClient', () => {
  it('serves its API under an /api/ base on loopback', () => {
    expect(fake.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/$/);
  });

  it('answers auth.test with the configured workspace identity', async () => {
    const result = await webClient().auth.test();

    expect(result).toMatchObject({
      ok: true,
      url: 'https://polbot-test.slack.com/',
      team: 'Polbot Test Workspace',
      user: 'polbot-test',
      team_id: 'T0TEST0001',
      user_id: 'U0TESTBOT1',
      bot_id: 'B0TESTBOT1',
    });
    const [call] = fake.calls('auth.test');
    expect(call?.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
  });

  it('rejects a missing token with not_authed and a wrong one with invalid_auth', async () => {
    await expect(webClient(null).auth.test()).rejects.toMatchObject({
      code: webApi.ErrorCode.PlatformError,
      data: { error: 'not_authed' },
    });
    await expect(webClient('xoxb-someone-else').auth.test()).rejects.toMatchObject({
      data: { error: 'invalid_auth' },
    });
    await expect(webClient(APP_TOKEN).chat.postMessage({ channel: 'C1', text: 'x' })).rejects.toMatchObject({
      data: { error: 'not_allowed_token_type' },
    });
  });

  it('records chat.postMessage with form-encoded blocks decoded back into objects', async () => {
    const blocks = [
      { type: 'section', text: { type: 'mrkdwn', text: '*BTC* PoL 12.5%' } },
      {
        type: 'actions',
        elements: [{ type: 'button', action_id: 'refresh', value: 'BTC', text: { type: 'plain_text', text: 'Refresh' } }],
      },
    ];
    const client = webClient();

    const first = await client.chat.postMessage({ channel: 'C0RISK0001', text: 'BTC risk', blocks });
    const second = await client.chat.postMessage({ channel: 'C0RISK0001', text: 'ETH risk' });

    const [recorded] = fake.calls('chat.postMessage');
    expect(recorded?.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(recorded?.args.blocks).toEqual(blocks);
    expect(recorded?.args.text).toBe('BTC risk');
    // The wire format really carried blocks as a JSON string inside the form.
    expect(fake.rawPayloads().some((raw) => raw.includes(`blocks=${encodeURIComponent(JSON.stringify(blocks))}`))).toBe(true);
    expect(first).toMatchObject({ ok: true, channel: 'C0RISK0001', message: { text: 'BTC risk', blocks, bot_id: 'B0TESTBOT1' } });
    expect(first.ts).toMatch(/^\d{10}\.\d{6}$/);
    expect(Number(second.ts)).toBeGreaterThan(Number(first.ts));
  });

  it('accepts JSON bodies as the Web API does', async () => {
    const response = await fetch(`${fake.url}chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BOT_TOKEN}`, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ channel: 'C0JSON0001', text: 'via json', blocks: [{ type: 'divider' }] }),
    });

    expect(await response.json()).toMatchObject({ ok: true, channel: 'C0JSON0001' });
    expect(fake.calls('chat.postMessage')[0]?.args).toEqual({ channel: 'C0JSON0001', text: 'via json', blocks: [{ type: 'divider' }] });
  });

  it('runs the files.uploadV2 flow and keeps the exact bytes', async () => {
    const bytes = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x0d, 0x0a]), Buffer.from('polbot chart')]);

    const result = await webClient().files.uploadV2({
      channel_id: 'C0RISK0001',
      thread_ts: '1700000000.000100',
      initial_comment: 'PoL chart',
      file: bytes,
      filename: 'pol-btc.png',
      title: 'BTC PoL',
    });

    expect(fake.calls().map((c) => c.method)).toEqual(['files.getUploadURLExternal', 'upload', 'files.completeUploadExternal']);
    const [urlCall] = fake.calls('files.getUploadURLExternal');
    expect(urlCall?.args).toMatchObject({ filename: 'pol-btc.png', length: String(bytes.length) });
    const fileId = (urlCall!.response as { file_id: string }).file_id;
    // The client posts the bytes as a multipart part, not as a raw body.
    expect(fake.calls('upload')[0]?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);

    const uploads = fake.uploads();
    expect(uploads).toHaveLength(1);
    expect(uploads[0]?.file_id).toBe(fileId);
    expect(uploads[0]?.filename).toBe('pol-btc.png');
    expect(uploads[0]?.bytes.equals(bytes)).toBe(true);

    const [complete] = fake.calls('files.completeUploadExternal');
    expect(complete?.args).toMatchObject({
      channel_id: 'C0RISK0001',
      thread_ts: '1700000000.000100',
      initial_comment: 'PoL chart',
      files: [{ id: fileId, title: 'BTC PoL' }],
    });
    // uploadV2 wraps each completeUploadExternal answer, so files are nested twice.
    const completions = (result as unknown as { files: Array<{ ok: boolean; files: Array<Record<string, unknown>> }> }).files;
    expect(completions[0]?.ok).toBe(true);
    expect(completions[0]?.files[0]).toMatchObject({
      id: fileId,
      title: 'BTC PoL',
      name: 'pol-btc.png',
      size: bytes.length,
      mimetype: 'image/png',
    });
  });

  it('refuses to complete an upload whose bytes never arrived', async () => {
    const client = webClient();
    const { file_id } = await client.files.getUploadURLExternal({ filename: 'x.txt', length: 3 });

    await expect(client.files.completeUploadExternal({ files: [{ id: file_id as string }], channel_id: 'C1' })).rejects.toMatchObject({
      data: { error: 'file_not_found' },
    });
  });

  it('rate limits with Retry-After, which the client honours before retrying', async () => {
    fake.rateLimitNext('chat.postMessage', { retryAfterSec: 1 });
    const client = webClient();
    const announced: number[] = [];
    client.on(webApi.WebClientEvent.RATE_LIMITED, (seconds: number) => announced.push(seconds));

    const started = performance.now();
    const result = await client.chat.postMessage({ channel: 'C0RISK0001', text: 'after the limit' });
    const elapsed = performance.now() - started;

    expect(result.ok).toBe(true);
    expect(announced).toEqual([1]);
    expect(elapsed).toBeGreaterThanOrEqual(1000 - TIMER_SLACK_MS);
    const attempts = fake.calls('chat.postMessage');
    expect(attempts.map((c) => c.status)).toEqual([429, 200]);
    expect(attempts[0]?.response).toEqual({ ok: false, error: 'ratelimited' });
    expect(attempts[1]!.at.getTime() - attempts[0]!.at.getTime()).toBeGreaterThanOrEqual(1000 - TIMER_SLACK_MS);
  });

  it('surfaces failNext as the client platform error, for the scheduled number of calls only', async () => {
    fake.failNext('chat.postMessage', { error: 'not_in_channel' });
    const client = webClient();

    const failure = await client.chat.postMessage({ channel: 'C0RISK0001', text: 'x' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).toMatchObject({ code: webApi.ErrorCode.PlatformError, data: { ok: false, error: 'not_in_channel' } });
    await expect(client.chat.postMessage({ channel: 'C0RISK0001', text: 'x' })).resolves.toMatchObject({ ok: true });

    const { ts } = await client.chat.postMessage({ channel: 'C1', text: 'x' });
    fake.failNext('chat.update', { error: 'channel_not_found', times: 2 });
    for (let i = 0; i < 2; i += 1) {
      await expect(client.chat.update({ channel: 'C1', ts: ts!, text: 'y' })).rejects.toMatchObject({
        data: { error: 'channel_not_found' },
      });
    }
    await expect(client.chat.update({ channel: 'C1', ts: ts!, text: 'y' })).resolves.toMatchObject({ ok: true, ts });
    // As Slack: only a message that exists in that channel can be updated.
    await expect(client.chat.update({ channel: 'C1', ts: '1.000001', text: 'y' })).rejects.toMatchObject({
      data: { error: 'message_not_found' },
    });
    await expect(client.chat.update({ channel: 'C2', ts: ts!, text: 'y' })).rejects.toMatchObject({ data: { error: 'message_not_found' } });
  });

  it('fails every call aimed at a channel marked with failChannel until it is restored', async () => {
    const client = webClient();
    fake.failChannel('C0GONE0001', 'not_in_channel');

    await expect(client.chat.postMessage({ channel: 'C0GONE0001', text: 'a' })).rejects.toMatchObject({
      data: { error: 'not_in_channel' },
    });
    await expect(client.chat.postEphemeral({ channel: 'C0GONE0001', user: 'U1', text: 'b' })).rejects.toMatchObject({
      data: { error: 'not_in_channel' },
    });
    await expect(client.chat.postMessage({ channel: 'C0OTHER001', text: 'c' })).resolves.toMatchObject({ ok: true });

    fake.failChannel('C0GONE0001', null);
    await expect(client.chat.postEphemeral({ channel: 'C0GONE0001', user: 'U1', text: 'd' })).resolves.toMatchObject({
      ok: true,
      message_ts: expect.any(String),
    });
  });

  it('answers unknown methods with unknown_method', async () => {
    await expect(webClient().apiCall('polbot.doesNotExist')).rejects.toMatchObject({ data: { error: 'unknown_method' } });
  });

  it('only opens Socket Mode connections for the app-level token', async () => {
    await expect(webClient(BOT_TOKEN).apps.connections.open()).rejects.toMatchObject({ data: { error: 'not_allowed_token_type' } });
    const opened = await webClient(APP_TOKEN).apps.connections.open();
    expect(opened.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/socket\?ticket=[0-9a-f-]+&app_id=A0TESTAPP1$/);
  });

  it('waitFor resolves on a later call and times out with a description of what it saw', async () => {
    const pending = fake.waitFor('chat.delete', (c) => c.args.ts === '2.000002');
    await webClient().chat.delete({ channel: 'C1', ts: '1.000001' });
    await webClient().chat.delete({ channel: 'C1', ts: '2.000002' });
    await expect(pending).resolves.toMatchObject({ args: { channel: 'C1', ts: '2.000002' } });

    await expect(fake.waitFor('chat.postEphemeral', undefined, 50)).rejects.toThrow(
      /no chat\.postEphemeral call within 50ms; calls seen: chat\.delete\(200\), chat\.delete\(200\)/,
    );
  });

  it('records response_url posts under their id', async () => {
    const url = fake.responseUrl('cmd-42');
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'done', response_type: 'ephemeral' }),
    });

    expect(response.status).toBe(200);
    const call = await fake.waitFor('response_url');
    expect(call).toMatchObject({ id: 'cmd-42', args: { text: 'done', response_type: 'ephemeral' } });
  });
});

describe('signed-request helpers', () => {
  it('signs as v0=HMAC-SHA256 over v0:timestamp:body, matching a published Slack example', () => {
    // The worked example from Slack's "Verifying requests from Slack" guide.
    const body =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    const headers = signSlackRequest('8f742231b10e8888abcd99yyyzzz85a5', body, 1531420618);
    expect(headers).toEqual({
      'x-slack-signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
      'x-slack-request-timestamp': '1531420618',
    });
  });

  it('builds slash command bodies in Slack form encoding', () => {
    const body = slashCommandBody({
      command: '/pol',
      text: 'BTC 30d',
      response_url: 'http://127.0.0.1:1/r',
      user_id: 'U9',
      channel_id: 'C9',
    });
    const form = new URLSearchParams(body);
    expect(body).toContain('command=%2Fpol');
    expect(body).toContain('text=BTC+30d');
    expect(Object.fromEntries(form)).toMatchObject({
      command: '/pol',
      text: 'BTC 30d',
      user_id: 'U9',
      channel_id: 'C9',
      response_url: 'http://127.0.0.1:1/r',
    });
    expect(form.get('trigger_id')).toMatch(/^\d+\.\d+\.[0-9a-f]{32}$/);
  });

  it('builds block_actions bodies as a form-encoded payload', () => {
    const body = blockActionsBody({
      actions: [{ action_id: 'refresh', value: 'BTC' }],
      user: 'U9',
      channel: 'C9',
      response_url: 'http://127.0.0.1:1/r',
      message: { ts: '1700000000.000200', text: 'card' },
    });
    const payload = JSON.parse(new URLSearchParams(body).get('payload') ?? 'null');
    expect(payload).toMatchObject({
      type: 'block_actions',
      user: { id: 'U9' },
      channel: { id: 'C9' },
      container: { type: 'message', message_ts: '1700000000.000200', channel_id: 'C9' },
      message: { type: 'message', ts: '1700000000.000200', text: 'card' },
      actions: [{ action_id: 'refresh', value: 'BTC', type: 'button' }],
    });
  });
});

describe('a real Bolt app in HTTP mode against the fake', () => {
  let app: App;
  let endpoint: string;
  const commandsSeen: string[] = [];

  beforeAll(async () => {
    app = new App({
      token: BOT_TOKEN,
      ...KNOWN_BOT,
      signingSecret: SIGNING_SECRET,
      logLevel: LogLevel.ERROR,
      clientOptions: { slackApiUrl: fake.url, retryConfig: FAST_RETRIES },
    });
    app.command('/pol', async ({ command, ack, client }) => {
      commandsSeen.push(command.text);
      await ack();
      await client.chat.postMessage({ channel: command.channel_id, text: `PoL for ${command.text}` });
    });
    app.action<BlockButtonAction>('refresh', async ({ action, ack, respond }) => {
      await ack();
      await respond({ text: `refreshed ${action.value}`, replace_original: false });
    });
    const server = await app.start({ port: 0, host: '127.0.0.1' });
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
  });

  afterAll(async () => {
    await app.stop();
  });

  afterEach(() => {
    commandsSeen.length = 0;
  });

  it('acks a signed slash command and its handler posts through the fake', async () => {
    const body = slashCommandBody({
      command: '/pol',
      text: 'BTC',
      channel_id: 'C0HTTP0001',
      team_id: IDENTITY.teamId,
      response_url: fake.responseUrl(),
    });

    const response = await postToBolt(endpoint, body, SIGNING_SECRET);

    expect(response.status).toBe(200);
    const post = await fake.waitFor('chat.postMessage', (c) => c.args.text === 'PoL for BTC');
    expect(post.args.channel).toBe('C0HTTP0001');
    // Bolt's per-request client adds the payload's team_id to every call it makes.
    expect(post.args.team_id).toBe(IDENTITY.teamId);
    expect(post.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    expect(commandsSeen).toEqual(['BTC']);
  });

  it('rejects a forged signature and a stale timestamp with 401 without running the handler', async () => {
    const body = slashCommandBody({ command: '/pol', text: 'ETH', response_url: fake.responseUrl() });

    const forged = await postToBolt(endpoint, body, 'not-the-signing-secret');
    const stale = await postToBolt(endpoint, body, SIGNING_SECRET, { timestampSec: Math.floor(Date.now() / 1000) - 10 * 60 });

    expect(forged.status).toBe(401);
    expect(stale.status).toBe(401);
    expect(commandsSeen).toEqual([]);
    expect(fake.calls('chat.postMessage')).toEqual([]);
  });

  it('delivers a block action whose handler answers on the fake response_url', async () => {
    const body = blockActionsBody({
      actions: [{ action_id: 'refresh', value: 'SOL' }],
      user: 'U0CLICKER1',
      channel: 'C0HTTP0001',
      message: { ts: '1700000000.000300', text: 'SOL card' },
      response_url: fake.responseUrl('action-1'),
    });

    const response = await postToBolt(endpoint, body, SIGNING_SECRET);

    expect(response.status).toBe(200);
    const reply = await fake.waitFor('response_url', (c) => c.id === 'action-1');
    expect(reply.args).toEqual({ text: 'refreshed SOL', replace_original: false });
  });
});

describe('a real Bolt app in Socket Mode against the fake', () => {
  let app: App;
  let connectionsOpen: RecordedCall[];
  const acked: string[] = [];

  beforeAll(async () => {
    fake.clear();
    app = new App({
      token: BOT_TOKEN,
      ...KNOWN_BOT,
      appToken: APP_TOKEN,
      socketMode: true,
      logLevel: LogLevel.ERROR,
      // Bolt hands clientOptions to the Socket Mode client as well, so this one
      // override also points apps.connections.open at the fake.
      clientOptions: { slackApiUrl: fake.url, retryConfig: FAST_RETRIES },
    });
    app.command('/pol', async ({ command, ack, client }) => {
      await ack({ text: `checking ${command.text}` });
      acked.push(command.text);
      await client.chat.postMessage({ channel: command.channel_id, text: `PoL for ${command.text}` });
    });
    app.action('refresh', async ({ ack }) => {
      await ack();
    });
    await app.start();
    await fake.socket.waitForConnection();
    // Captured here because beforeEach clears the recorder before every test.
    connectionsOpen = fake.calls('apps.connections.open');
  });

  afterAll(async () => {
    await app.stop();
    await fake.socket.waitForDisconnect();
  });

  it('connected through apps.connections.open with the app token', async () => {
    expect(fake.socket.connectionCount()).toBe(1);
    expect(connectionsOpen).toHaveLength(1);
    expect(connectionsOpen[0]?.headers.authorization).toBe(`Bearer ${APP_TOKEN}`);
    // undici's WebSocket under the client must answer server pings.
    await fake.socket.ping();
  });

  it('delivers a slash_commands envelope and receives the ack payload', async () => {
    const payload = slashCommandPayload({ command: '/pol', text: 'ETH', channel_id: 'C0SOCK0001', response_url: fake.responseUrl() });

    const ack = await fake.socket.sendEnvelope({ type: 'slash_commands', payload });

    expect(ack.payload).toEqual({ text: 'checking ETH' });
    const sent = fake.rawPayloads().find((raw) => raw.includes('"type":"slash_commands"'));
    expect(sent).toContain(`"envelope_id":"${ack.envelope_id}"`);
    expect(sent).toContain('"accepts_response_payload":true');
    const post = await fake.waitFor('chat.postMessage', (c) => c.args.text === 'PoL for ETH');
    expect(post.args.channel).toBe('C0SOCK0001');
    expect(acked).toEqual(['ETH']);
  });

  it('delivers an interactive block_actions envelope and receives an empty ack', async () => {
    const payload = blockActionsPayload({ actions: [{ action_id: 'refresh', value: 'BTC' }], response_url: fake.responseUrl() });

    const ack = await fake.socket.sendEnvelope({ type: 'interactive', payload });

    expect(ack.payload).toEqual({});
  });

  it('rejects an envelope nobody acks within the timeout', async () => {
    const payload = slashCommandPayload({ command: '/unhandled', response_url: fake.responseUrl() });
    await expect(fake.socket.sendEnvelope({ type: 'slash_commands', payload, timeoutMs: 100 })).rejects.toThrow(
      /no ack for slash_commands envelope .* within 100ms/,
    );
  });
});

describe('Socket Mode connection lifecycle', () => {
  it('refuses a WebSocket without a ticket from apps.connections.open', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`${fake.origin.replace('http', 'ws')}/socket?ticket=made-up`);
      ws.on('unexpected-response', (_req, res) => {
        resolve(res.statusCode ?? 0);
        ws.terminate();
      });
      ws.on('open', () => reject(new Error('connection without a valid ticket was accepted')));
      ws.on('error', () => undefined);
    });
    expect(status).toBe(401);
  });

  it('a disconnect message makes the real client reconnect through a fresh apps.connections.open', async () => {
    const clientOptions = { slackApiUrl: fake.url, retryConfig: FAST_RETRIES };
    // With an explicit receiver Bolt does not forward clientOptions, so the API
    // override has to be given to the receiver separately.
    const receiver = new SocketModeReceiver({
      appToken: APP_TOKEN,
      logLevel: LogLevel.ERROR,
      clientPingTimeout: 300,
      installerOptions: { clientOptions },
    });
    const app = new App({ token: BOT_TOKEN, ...KNOWN_BOT, receiver, logLevel: LogLevel.ERROR, clientOptions });
    app.command('/pol', async ({ ack }) => {
      await ack({ text: 'still here' });
    });
    const before = fake.socket.connectionsOpened();
    try {
      await app.start();
      await fake.socket.waitForConnection({ nth: before + 1 });

      fake.socket.sendDisconnect('refresh_requested');
      await fake.socket.waitForConnection({ nth: before + 2, timeoutMs: 5_000 });

      expect(fake.calls('apps.connections.open')).toHaveLength(2);
      const ack = await fake.socket.sendEnvelope({
        type: 'slash_commands',
        payload: slashCommandPayload({ response_url: fake.responseUrl() }),
      });
      expect(ack.payload).toEqual({ text: 'still here' });
    } finally {
      await app.stop();
      await fake.socket.waitForDisconnect();
    }
  });
});
