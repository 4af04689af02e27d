import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSlack, type SlackAdapter } from '../../../adapters/slack/index.js';
import type { Core } from '../../../commands/core/core.js';
import { createLogger, onLogLine } from '../../../src/log.js';
import { DEMO_API_KEY } from '../../../src/sim/server.js';
import { startStack, type Stack } from '../../helpers/discord.js';
import { postToBolt, slashCommandBody, startFakeSlack, type FakeSlack } from '../../fakes/slack/index.js';
import { demoCore } from '../../helpers/core.js';
import { encodingsOf, FIXED_SECRETS, findLeaks, SecretWatch, secretWatch, type Sighting } from '../../helpers/secret-watch.js';
import { SIGNING_SECRET } from '../../helpers/slack/harness.js';

/**
 * The suite-wide secret check (test/setup/secret-watch.ts) only protects anything if it can fail and
 * if it actually sees the traffic. Leaks are planted in a watch of their own here, never in the one
 * the suite checks.
 */

const PLANTED = 'xoxb-4242-planted-token-value-9f1c';

function memoryLog(): { log: ReturnType<typeof createLogger>; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { log: createLogger({ level: 'debug', destination }), lines };
}

describe('detection', () => {
  it('reports a secret planted in a log line and in a fake platform payload, saying where, with the secret masked', () => {
    const watch = new SecretWatch();
    watch.secret(PLANTED, 'planted bot token');
    watch.log('log line', `{"level":30,"app":"polbot","msg":"calling chat.postMessage with ${PLANTED}"}\n`);
    watch.payload(
      'fake Slack POST /api/chat.postMessage',
      `content-type: application/json\n\n{"channel":"C1","text":"token is ${PLANTED}"}`,
    );
    watch.payload('fake Discord PATCH /api/v10/channels/1/messages/2', '{"content":"nothing to see"}');

    const leaks = watch.leaks();
    expect(leaks).toEqual([
      expect.objectContaining({ label: 'planted bot token', encoding: 'plain', kind: 'log', where: 'log line' }),
      expect.objectContaining({
        label: 'planted bot token',
        encoding: 'plain',
        kind: 'payload',
        where: 'fake Slack POST /api/chat.postMessage',
      }),
    ]);
    expect(leaks[0]!.excerpt).toContain('calling chat.postMessage with [planted bot token]');

    let message = '';
    try {
      watch.assertClean();
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^secret\(s\) leaked into logs or platform payloads \(2\)/);
    expect(message).toContain('planted bot token (plain) in payload at fake Slack POST /api/chat.postMessage');
    expect(message).toContain('token is [planted bot token]');
    for (const pattern of encodingsOf(PLANTED)) expect(message).not.toContain(pattern.text);
    expect(message).not.toContain('4242-planted');
  });

  it('finds the secret URL-encoded, inside base64 at any alignment, and in a request path', () => {
    // `?>~~~` makes base64 and base64url differ, so both forms are exercised.
    const secret = 'sig/secret+with=odd&chars?>~~~';
    const sightings: Sighting[] = [
      { kind: 'payload', where: 'fake Slack POST /api/x', text: `text=${encodeURIComponent(secret)}` },
      ...['', 'u:', 'us:'].map(
        (prefix): Sighting => ({
          kind: 'payload',
          where: 'fake Slack POST /api/y',
          text: `proxy-authorization: Basic ${Buffer.from(`${prefix}${secret}`).toString('base64')}`,
        }),
      ),
      { kind: 'log', where: 'log line', text: `{"msg":"${Buffer.from(`x${secret}y`).toString('base64url')}"}` },
      { kind: 'payload', where: `fake Discord GET /api/v10/channels?key=${secret}`, text: '' },
    ];
    const leaks = findLeaks([{ value: secret, label: 'odd secret' }], sightings);
    expect(leaks.map((l) => l.encoding)).toEqual(['URL-encoded', 'base64', 'base64', 'base64', 'base64url', 'plain']);
    expect(leaks.at(-1)!.where).toBe('fake Discord GET /api/v10/channels?key=[odd secret]');
  });

  it('stays quiet on text that only shares a prefix with a secret, and ignores placeholder-length values', () => {
    const watch = new SecretWatch();
    watch.secret(PLANTED, 'planted bot token');
    watch.secret('xoxb-1', 'placeholder');
    watch.log('log line', `{"msg":"token ${PLANTED.slice(0, -1)}, placeholder xoxb-1"}`);
    expect(watch.secrets().map((s) => s.label)).toEqual(['planted bot token']);
    expect(watch.leaks()).toEqual([]);
    expect(() => watch.assertClean()).not.toThrow();
  });

  it('lists the suite’s fixed secrets as the code defines them', () => {
    const fixed = FIXED_SECRETS.map((s) => s.value);
    expect(fixed).toContain(DEMO_API_KEY);
    expect(fixed).toContain(SIGNING_SECRET);
    for (const value of fixed) expect(secretWatch.secrets().map((s) => s.value)).toContain(value);
  });
});

describe('log lines', () => {
  it('gathers each line exactly as it reaches the logger’s destination, after scrubbing', () => {
    const tapped: string[] = [];
    const stop = onLogLine((line) => tapped.push(line));
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const log = createLogger({ level: 'info', secrets: [PLANTED], destination });
    log.child({ component: 'check' }).warn({ detail: `key=${PLANTED}` }, 'upstream refused');
    stop();

    expect(lines).toHaveLength(1);
    expect(tapped).toEqual(lines);
    expect(lines[0]).toContain('"detail":"key=[redacted]"');
    expect(lines[0]).not.toContain(PLANTED);
    expect(secretWatch.sightings('log').map((s) => s.text)).toContain(lines[0]);
  });
});

describe('a real command through each adapter', () => {
  const signingSecret = 'secret-check-signing-secret-2d7e';
  let fake: FakeSlack;
  let core: Core;
  let slack: SlackAdapter;
  let slackLog: ReturnType<typeof memoryLog>;
  let discord: Stack;

  beforeAll(async () => {
    fake = await startFakeSlack();
    core = await demoCore({ RATE_LIMIT_PER_USER: '0' });
    slackLog = memoryLog();
    slack = await startSlack({
      core,
      slack: { botToken: fake.botToken, signingSecret, apiUrl: fake.url },
      http: { host: '127.0.0.1', port: 0 },
      log: slackLog.log,
    });
    discord = await startStack({ RATE_LIMIT_PER_USER: '0' });
  }, 60_000);

  afterAll(async () => {
    await slack?.stop();
    await fake?.close();
    await core?.close();
    await discord?.close();
  });

  it('Slack: the fake’s payloads (without the Authorization header) and the adapter’s log lines are gathered', async () => {
    const ack = await postToBolt(
      `http://127.0.0.1:${slack.port}/slack/events`,
      slashCommandBody({ text: 'bitcoin', response_url: fake.responseUrl('secret-check') }),
      signingSecret,
    );
    expect(ack.status).toBe(200);
    await fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.args.blocks ?? '').includes('Bitcoin'), 15_000);

    const registered = secretWatch.secrets().map((s) => s.value);
    for (const value of [fake.botToken, fake.appToken, signingSecret, ...core.upstream.secrets]) expect(registered).toContain(value);

    const payloads = secretWatch.sightings('payload').filter((s) => s.where.startsWith('fake Slack '));
    const post = payloads.find((s) => s.where === 'fake Slack POST /api/chat.postMessage' && s.text.includes('Bitcoin'));
    expect(post).toBeDefined();
    expect(payloads.some((s) => s.where === 'fake Slack POST /api/auth.test')).toBe(true);
    // The client did send the token in the header; the fake's own record shows it, the check's does not.
    expect(fake.rawPayloads().some((raw) => raw.includes(`Bearer ${fake.botToken}`))).toBe(true);
    for (const p of payloads) expect(p.text).not.toMatch(/^authorization:/im);

    expect(slackLog.lines.length).toBeGreaterThan(3);
    expect(slackLog.lines.some((l) => l.includes('"component":"slack-sdk"'))).toBe(true);
    const gathered = new Set(secretWatch.sightings('log').map((s) => s.text));
    for (const line of slackLog.lines) expect(gathered.has(line)).toBe(true);

    // Nothing leaked, and a leak among this very traffic would be reported.
    expect(secretWatch.leaks()).toEqual([]);
    const planted: Sighting = {
      kind: 'payload',
      where: 'fake Slack POST /api/chat.postMessage',
      text: `${post!.text}&note=${fake.botToken}`,
    };
    expect(findLeaks(secretWatch.secrets(), [...secretWatch.sightings(), planted])).toEqual([
      expect.objectContaining({ label: 'fake Slack bot token', kind: 'payload' }),
    ]);
  });

  it('Discord: REST payloads, gateway frames (token kept out) and the adapter’s log lines are gathered', async () => {
    const h = discord.fake.sendCommand({ name: 'pol', subcommand: 'card', options: { name: 'exchange:binance' } });
    await h.callback(10_000);
    await h.waitForEdit(15_000, (c) => JSON.stringify(c.body).includes('Binance'));

    expect(secretWatch.secrets().map((s) => s.value)).toContain(discord.fake.token);

    const payloads = secretWatch.sightings('payload').filter((s) => s.where.startsWith('fake Discord '));
    expect(
      payloads.some(
        (s) =>
          /^fake Discord PATCH \/api\/v10\/webhooks\/\d+\/[^/]+\/messages\/(@|%40)original$/.test(s.where) && s.text.includes('Binance'),
      ),
    ).toBe(true);
    const identify = payloads.find((s) => s.where === 'fake Discord gateway / op 2');
    expect(identify?.text).toContain('"token":"[credential]"');
    expect(identify?.text).toContain('"intents"');
    for (const p of payloads) expect(p.text).not.toMatch(/^authorization:/im);

    expect(discord.logLines.length).toBeGreaterThan(0);
    const gathered = new Set(secretWatch.sightings('log').map((s) => s.text));
    for (const line of discord.logLines) expect(gathered.has(line)).toBe(true);

    expect(secretWatch.leaks()).toEqual([]);
  });
});
