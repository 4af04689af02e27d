import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSlack, type CommandRunner } from '../../../adapters/slack/index.js';
import type { RunResult } from '../../../commands/core/run.js';
import { createLogger } from '../../../src/log.js';
import { postToBolt, slashCommandBody, startFakeSlack, type FakeSlack } from '../../fakes/slack/index.js';
import { ackBody, blocksJson, headerOf, LogCapture, SIGNING_SECRET } from '../../helpers/slack/harness.js';

let fake: FakeSlack;

beforeAll(async () => {
  fake = await startFakeSlack();
});

afterAll(async () => {
  await fake.close();
});

beforeEach(() => {
  fake.clear();
});

const http = { host: '127.0.0.1', port: 0 };
const textReply = (title: string): RunResult => ({ command: 'chart', reply: { kind: 'text', title, text: 'A chart would be here.' } });

async function withAdapter(
  core: CommandRunner,
  body: (endpoint: string, stop: () => Promise<void>) => Promise<void>,
  extra: { digestAdmins?: string[] } = {},
): Promise<void> {
  const log = createLogger({ level: 'silent' });
  const slack = await startSlack({
    core,
    slack: { botToken: fake.botToken, signingSecret: SIGNING_SECRET, apiUrl: fake.url },
    http,
    log,
    ...extra,
  });
  try {
    await body(`http://127.0.0.1:${slack.port}/slack/events`, () => slack.stop());
  } finally {
    await slack.stop();
  }
}

const command = (endpoint: string, text: string, responseId: string) =>
  postToBolt(endpoint, slashCommandBody({ text, response_url: fake.responseUrl(responseId) }), SIGNING_SECRET);

describe('start-up', () => {
  it('stops with one clear line when Slack refuses the bot token, without repeating it', async () => {
    const logs = new LogCapture();
    const token = 'xoxb-9999-wrong-token-value';
    const failure = await startSlack({
      core: { run: async () => textReply('x') },
      slack: { botToken: token, signingSecret: SIGNING_SECRET, apiUrl: fake.url.replace(/\/$/, '') },
      http,
      log: createLogger({ level: 'debug', destination: logs }),
      retryConfig: { retries: 0 },
    }).then(
      async (started) => {
        await started.stop();
        return undefined;
      },
      (e: unknown) => e as Error,
    );

    expect(failure).toBeInstanceOf(Error);
    expect(failure?.message).toBe('Slack: the bot token check (auth.test) failed: invalid_auth');
    expect(fake.calls('auth.test')).toHaveLength(1);
    expect(logs.lines.join('\n')).not.toContain(token);
  });

  it('refuses a configuration with neither a signing secret nor an app token', async () => {
    await expect(
      startSlack({
        core: { run: async () => textReply('x') },
        slack: { botToken: fake.botToken },
        http,
        log: createLogger({ level: 'silent' }),
      }),
    ).rejects.toThrow(/SLACK_SIGNING_SECRET \(HTTP mode\) or SLACK_APP_TOKEN \(Socket Mode\)/);
  });
});

describe('robustness', () => {
  it('acknowledges and apologises when the core breaks its never-throw promise', async () => {
    await withAdapter({ run: () => Promise.reject(new Error('kaboom at /srv/polbot/core.ts:12 key=svc_secret')) }, async (endpoint) => {
      const response = await command(endpoint, 'binance', 'broken');
      expect(ackBody(response)).toBeUndefined();
      const apology = (await fake.waitFor('response_url', (c) => c.id === 'broken', 5_000)).args;
      expect(apology).toMatchObject({ response_type: 'ephemeral' });
      expect(blocksJson(apology)).toContain('Something went wrong on our side');
      expect(JSON.stringify(apology)).not.toMatch(/kaboom|svc_secret|core\.ts/);
      expect(fake.calls('chat.postMessage')).toEqual([]);
    });
  });

  it('finishes answers under way before stop() resolves', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const core: CommandRunner = {
      run: async () => {
        await gate;
        return textReply('Slow answer');
      },
    };
    await withAdapter(core, async (endpoint, stop) => {
      const response = await command(endpoint, 'anything', 'slow-stop');
      expect(ackBody(response)).toBeUndefined();

      const stopped = stop();
      setTimeout(release, 200);
      await stopped;

      const posts = fake.calls('chat.postMessage');
      expect(posts.map((c) => headerOf(c.args))).toEqual(['Slow answer']);
      // Answered within a second: no "Looking up…" came and went.
      expect(fake.calls('response_url')).toEqual([]);
    });
  });

  it('passes the Slack user (with the name alerts show), channel and workspace to the core as the caller', async () => {
    const seen: unknown[] = [];
    const core: CommandRunner = {
      run: async (_text, caller) => {
        seen.push(caller);
        return { command: 'help', reply: { kind: 'text', text: 'help' } };
      },
    };
    await withAdapter(core, async (endpoint) => {
      await command(endpoint, 'help', 'caller');
    });
    await withAdapter(core, async (endpoint) => command(endpoint, 'help', 'caller-2').then(() => undefined), {
      digestAdmins: ['U0SOMEONE1'],
    });
    expect(seen).toEqual([
      {
        platform: 'slack',
        userId: 'U0FAKEUSR1',
        userName: 'fake.user',
        channelId: 'C0FAKECHN1',
        workspaceId: 'T0FAKE0001',
        canManageDigests: true,
        // The user groups the command's text named, for an escalation.
        groups: { find: expect.any(Function) },
      },
      {
        platform: 'slack',
        userId: 'U0FAKEUSR1',
        userName: 'fake.user',
        channelId: 'C0FAKECHN1',
        workspaceId: 'T0FAKE0001',
        canManageDigests: false,
        // The user groups the command's text named, for an escalation.
        groups: { find: expect.any(Function) },
      },
    ]);
  });
});
