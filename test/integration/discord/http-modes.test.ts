import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startBot, type Bot } from '../../../app/bot.js';
import { loadConfig } from '../../../app/config.js';
import { createLogger } from '../../../src/log.js';
import { type FakeDiscord, startFakeDiscord } from '../../fakes/discord/index.js';
import { startFakeSlack, type FakeSlack } from '../../fakes/slack/index.js';
import { SIGNING_SECRET } from '../../helpers/slack/harness.js';
import { GUILD_ID } from '../../helpers/discord.js';

/**
 * Which way Discord's interactions come is decided by DISCORD_PUBLIC_KEY alone: without it the
 * gateway, exactly as before; with it the HTTP endpoint, on the port the other routes share,
 * the Slack events endpoint's included.
 */

// Each test starts the whole bot (database included); a loaded machine needs more than the default.
let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
}, 60_000);

async function bot(env: Record<string, string>): Promise<Bot> {
  const dataDir = await mkdtemp(join(tmpdir(), 'polbot-discord-modes-'));
  const b = await startBot(
    loadConfig({ POLBOT_DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', RATE_LIMIT_PER_USER: '0', ...env }),
    createLogger({ level: 'silent' }),
  );
  cleanup.push(async () => {
    await b.stop();
    await rm(dataDir, { recursive: true, force: true });
  });
  return b;
}

async function discordFake(): Promise<FakeDiscord> {
  const fake = await startFakeDiscord({ guildIds: [GUILD_ID], heartbeatIntervalMs: 300 });
  cleanup.push(() => fake.close());
  return fake;
}

const discordEnv = (fake: FakeDiscord) => ({
  DISCORD_TOKEN: fake.token,
  DISCORD_APPLICATION_ID: fake.applicationId,
  DISCORD_API_URL: fake.apiUrl,
  DISCORD_GUILD_ID: GUILD_ID,
});

describe('Discord: gateway or HTTP', () => {
  it('without DISCORD_PUBLIC_KEY, connects to the gateway, answers there, and serves no interactions endpoint', async () => {
    const fake = await discordFake();
    const b = await bot(discordEnv(fake));
    expect(fake.identifyCount).toBe(1);
    expect(b.discord?.shards).toEqual({ ids: [0], count: 1 });
    const h = fake.sendCommand({ name: 'pol', subcommand: 'help' });
    expect((await h.callback()).type).toBe(5);
    expect(JSON.stringify((await h.waitForEdit(10_000)).body)).toContain('polbot');
    const res = await fetch(`http://127.0.0.1:${b.port}/discord/interactions`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
    const health = JSON.stringify(await (await fetch(`http://127.0.0.1:${b.port}/healthz`)).json());
    expect(health).toContain('shards 0 of 1');
  }, 120_000);

  it('with DISCORD_PUBLIC_KEY beside Slack over HTTP, serves interactions on the Slack events port', async () => {
    const fake = await discordFake();
    const slack: FakeSlack = await startFakeSlack();
    cleanup.push(() => slack.close());
    const b = await bot({
      ...discordEnv(fake),
      DISCORD_PUBLIC_KEY: fake.publicKey,
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.url,
    });
    expect(b.slack?.port).toBe(b.port);
    await fake.setInteractionsEndpoint(`http://127.0.0.1:${b.port}/discord/interactions`);
    const h = fake.sendCommand({ name: 'pol', subcommand: 'card', options: { name: 'exchange:binance' } });
    const x = await h.httpResponse();
    expect(x.failure).toBeUndefined();
    const type = (x.body as { type: number }).type;
    expect([4, 5]).toContain(type);
    const body = type === 4 ? x.body : (await h.waitForEdit(15_000)).body;
    expect(JSON.stringify(body)).toContain('"title":"Binance"');
    expect(fake.connectionCount).toBe(0);
  }, 120_000);
});
