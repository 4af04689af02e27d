import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LogLevel } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boltLogger } from '../../../adapters/slack/bolt-logger.js';
import { placementOf, SlackDeliveryError } from '../../../adapters/slack/delivery.js';
import { slackDeliverer, toDeliveryError } from '../../../adapters/slack/deliverer.js';
import { code, mrkdwn, plain } from '../../../adapters/slack/escape.js';
import { clip, fitLines } from '../../../adapters/slack/limits.js';
import { lookingUp, notInChannel, safeCode } from '../../../adapters/slack/notices.js';
import { guardRequestAge, timestampWithinWindow } from '../../../adapters/slack/signature.js';
import { DeliveryError } from '../../../src/delivery/port.js';
import { createLogger } from '../../../src/log.js';
import { LogCapture } from '../../helpers/slack/harness.js';
import { demoCore } from '../../helpers/core.js';

describe('escaping', () => {
  it('turns Slack control characters into entities so nothing is parsed as a mention or link', () => {
    expect(mrkdwn('<!channel> & <@U123> <https://evil.example|click>')).toBe(
      '&lt;!channel&gt; &amp; &lt;@U123&gt; &lt;https://evil.example|click&gt;',
    );
    expect(mrkdwn('already &amp; escaped')).toBe('already &amp;amp; escaped');
  });

  it('keeps plain @channel, @here and @everyone inert', () => {
    expect(mrkdwn('ping @channel and @Here, @everyone')).toBe('ping @\u200bchannel and @\u200bHere, @\u200beveryone');
    expect(mrkdwn('email me@channels.example')).toBe('email me@channels.example');
  });

  it('drops controls, zero-width and direction-override characters but keeps line breaks', () => {
    expect(mrkdwn('evil\u202egnp.exe\u200b\u2066x\u0007\nnext')).toBe('evilgnp.exex\nnext');
    // Fillers that draw as blank space are removed too: they can hide a word or pad a name.
    expect(mrkdwn('a\u034fb\u115fc\u1160d\u3164e\uffa0f')).toBe('abcdef');
    expect(plain('Bin\u3164ance')).toBe('Binance');
  });

  it('swaps angle brackets for look-alikes in plain text, which Slack shows verbatim', () => {
    expect(plain('<!here> A&B')).toBe('\u2039!here\u203a A&B');
  });

  it('keeps backticks from closing a code block', () => {
    expect(code('a```b <x>')).toBe('a\u02cb\u02cb\u02cbb &lt;x&gt;');
  });
});

describe('clipping', () => {
  it('never cuts an entity or a surrogate pair in half', () => {
    expect(clip('abc &amp; def', 7)).toBe('abc …');
    expect(clip('ab😀cd', 4)).toBe('ab…');
    expect(clip('short', 10)).toBe('short');
  });

  it('fits lines with a count of the rest', () => {
    const lines = Array.from({ length: 10 }, (_, i) => `line ${i}`);
    const text = fitLines('*Head*', lines, 40);
    expect(text.length).toBeLessThanOrEqual(40);
    expect(text).toMatch(/^\*Head\*\nline 0\n.*…and \d+ more$/s);
    expect(fitLines('', ['x'.repeat(100)], 50)).toMatch(/^x+…$/);
  });
});

describe('request timestamps', () => {
  const now = Date.UTC(2026, 10, 22, 12, 0, 0);
  const sec = Math.floor(now / 1000);

  it('accepts 5 minutes either way and nothing beyond', () => {
    expect(timestampWithinWindow(String(sec), now)).toBe(true);
    expect(timestampWithinWindow(String(sec - 300), now)).toBe(true);
    expect(timestampWithinWindow(String(sec + 300), now)).toBe(true);
    expect(timestampWithinWindow(String(sec - 301), now)).toBe(false);
    expect(timestampWithinWindow(String(sec + 301), now)).toBe(false);
    expect(timestampWithinWindow(String(sec + 360), now)).toBe(false);
  });

  it('refuses missing and malformed timestamps', () => {
    for (const bad of [undefined, '', 'soon', '1e9', '-5', `${sec}.5`, ' 1700000000']) expect(timestampWithinWindow(bad, now)).toBe(false);
  });

  describe('in front of a receiver', () => {
    let server: Server;
    let base: string;
    const reached: string[] = [];
    const rejected: string[] = [];

    beforeAll(async () => {
      const inner = (req: { url?: string }, res: { end: (s: string) => void }) => {
        reached.push(req.url ?? '');
        res.end('inner');
      };
      server = createServer(
        guardRequestAge(inner as never, { endpoints: ['/slack/events'], now: () => now, onReject: ({ reason }) => rejected.push(reason) }),
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    it('answers 401 before the receiver sees a future-dated event, and lets other routes through', async () => {
      const future = await fetch(`${base}/slack/events`, {
        method: 'POST',
        headers: { 'x-slack-request-timestamp': String(sec + 400) },
        body: 'x=1',
      });
      const missing = await fetch(`${base}/slack/events`, { method: 'POST', body: 'x=1' });
      const fine = await fetch(`${base}/slack/events`, {
        method: 'POST',
        headers: { 'x-slack-request-timestamp': String(sec) },
        body: 'x=1',
      });
      const health = await fetch(`${base}/healthz`);

      expect([future.status, missing.status, fine.status, health.status]).toEqual([401, 401, 200, 200]);
      expect(await future.text()).toBe('');
      expect(reached).toEqual(['/slack/events', '/healthz']);
      expect(rejected).toEqual(['out_of_window', 'missing']);
    });
  });
});

describe('placement', () => {
  it("follows the reply's audience: cards, tables and charts to the channel; choices, errors, help and health to the person", async () => {
    const text = { kind: 'text' as const, text: 'x' };
    expect(placementOf({ command: 'card', reply: { kind: 'error', message: 'x' } })).toBe('ephemeral');
    expect(placementOf({ command: 'card', reply: { kind: 'choice', reason: 'ambiguous', query: 'q', prompt: 'p', options: [] } })).toBe(
      'ephemeral',
    );
    expect(placementOf({ command: 'help', reply: { ...text, audience: 'asker' } })).toBe('ephemeral');
    // The core marks help and health as the asker's.
    const core = await demoCore();
    try {
      for (const c of ['help', 'health']) expect(placementOf(await core.run(c)), c).toBe('ephemeral');
    } finally {
      await core.close();
    }
    expect(placementOf({ command: 'chart', reply: text })).toBe('channel');
    expect(placementOf({ command: 'top', reply: { kind: 'table', title: 't', columns: [], rows: [] } })).toBe('channel');
  });
});

describe('notices', () => {
  it('repeats only well-formed Slack error codes', () => {
    expect(safeCode('not_in_channel')).toBe('not_in_channel');
    expect(safeCode('Error: connect ECONNREFUSED 10.0.0.1:443')).toBeUndefined();
    expect(safeCode(undefined)).toBeUndefined();
  });

  it('escapes what the person typed in "Looking up…"', () => {
    expect(lookingUp('<!channel> binance').text).toBe(':hourglass_flowing_sand: Looking up “&lt;!channel&gt; binance”…');
  });

  it('tells how to invite the bot, by mention', () => {
    expect(notInChannel('U0BOT', 'not_in_channel').text).toContain('`/invite <@U0BOT>`');
    expect(notInChannel(undefined, 'channel_not_found').text).toContain('*Integrations* → *Add apps*');
  });
});

describe('Bolt logger', () => {
  it('routes Bolt lines into pino with the error serialised and respects both levels', () => {
    const capture = new LogCapture();
    const log = createLogger({ level: 'info', destination: capture });
    const bolt = boltLogger(log);
    bolt.debug('not shown');
    bolt.info('API Call failed due to rate limiting. Will retry in', 1, 'seconds.');
    bolt.error(new Error('boom'), { method: 'chat.postMessage' });
    bolt.setLevel(LogLevel.ERROR);
    bolt.warn('suppressed by the Bolt level');

    const lines = capture.lines.map((l) => JSON.parse(l) as { level: number; msg: string; component: string; err?: { message: string } });
    expect(lines.map((l) => l.msg)).toEqual([
      'API Call failed due to rate limiting. Will retry in 1 seconds.',
      '{"method":"chat.postMessage"}',
    ]);
    expect(lines.every((l) => l.component === 'slack-sdk')).toBe(true);
    expect(lines[1]?.err?.message).toBe('boom');
    expect(bolt.getLevel()).toBe(LogLevel.ERROR);
  });
});

describe('digest deliverer', () => {
  it('maps Slack refusals to permanent channel or message failures, the rest to retries', async () => {
    const unused = () => Promise.reject(new Error('not used'));
    const failing = (code: string) =>
      slackDeliverer({ postReply: () => Promise.reject(new SlackDeliveryError(code, 'C1')), updateReply: unused });
    const reply = { kind: 'text' as const, text: 'digest' };

    const gone = await failing('not_in_channel')
      .post('C1', reply)
      .catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(DeliveryError);
    expect(gone).toMatchObject({ permanent: true, scope: 'channel', reason: expect.stringContaining('/invite') });
    expect(toDeliveryError(new SlackDeliveryError('msg_too_long', 'C1'))).toMatchObject({ permanent: true, scope: 'message' });
    expect(toDeliveryError(new SlackDeliveryError('request_error', 'C1'))).toMatchObject({ permanent: false });
    expect(toDeliveryError(new Error('socket hang up'))).toMatchObject({ permanent: false });

    const posted: string[] = [];
    await slackDeliverer({
      postReply: async (channel) => {
        posted.push(channel);
        return { ts: '1.2' };
      },
      updateReply: unused,
    }).post('C2', reply);
    expect(posted).toEqual(['C2']);
  });
});
