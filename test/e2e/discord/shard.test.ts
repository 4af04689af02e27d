import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, ShardingManager } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerDiscordCommands } from '../../../adapters/discord/index.js';
import { shardEnv, startSharding, stopSharding } from '../../../adapters/discord/shard.js';
import { type FakeDiscord, startFakeDiscord } from '../../fakes/discord/index.js';
import { secretWatch } from '../../helpers/secret-watch.js';
import { GUILD_ID, memoryLogger, settingsFor } from '../../helpers/discord.js';

// The manager forks real `polbot start` processes that inherit this environment: they read
// their configuration from it exactly as a production shard would.
const CHILD_ENV = [
  'DISCORD_TOKEN',
  'DISCORD_APPLICATION_ID',
  'DISCORD_API_URL',
  'DISCORD_GUILD_ID',
  'LOG_LEVEL',
  'POLBOT_DATA_DIR',
  'HOST',
  'PORT',
] as const;

let fake: FakeDiscord;
let manager: ShardingManager | undefined;
let dataDir: string;
const saved: Partial<Record<(typeof CHILD_ENV)[number], string | undefined>> = {};

beforeAll(async () => {
  fake = await startFakeDiscord({ guildIds: [GUILD_ID], heartbeatIntervalMs: 300 });
  await registerDiscordCommands({ discord: settingsFor(fake, GUILD_ID) });
  dataDir = await mkdtemp(join(tmpdir(), 'polbot-shard-'));
  for (const k of CHILD_ENV) saved[k] = process.env[k];
  Object.assign(process.env, {
    DISCORD_TOKEN: fake.token,
    DISCORD_APPLICATION_ID: fake.applicationId,
    DISCORD_API_URL: fake.apiUrl,
    DISCORD_GUILD_ID: GUILD_ID,
    LOG_LEVEL: 'warn',
    POLBOT_DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    // An ephemeral port for the shard's /healthz and /metrics.
    PORT: '0',
  });
});

afterAll(async () => {
  if (manager) await stopSharding(manager);
  for (const k of CHILD_ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  await fake?.close();
  // The child closes its database on SIGTERM; give it the moment it needs before removing it.
  await new Promise((resolve) => setTimeout(resolve, 500));
  await rm(dataDir, { recursive: true, force: true });
});

describe('sharding', () => {
  it('runs `polbot start` under discord.js’s ShardingManager, and the shard answers with its chart', async () => {
    const { log } = memoryLogger();
    // 'auto' asks the (fake) gateway endpoint for the recommended count: one shard here.
    const shardOutput = secretWatch.outputSink('`polbot start` shard output');
    manager = await startSharding({
      discord: settingsFor(fake, GUILD_ID),
      log,
      totalShards: 'auto',
      basePort: 0,
      spawnTimeoutMs: 60_000,
      output: (chunk) => shardOutput(chunk),
    });
    expect(manager.totalShards).toBe(1);
    expect(fake.calls({ method: 'GET', route: '/gateway/bot' }).length).toBeGreaterThanOrEqual(1);

    // The child identified as the shard the manager assigned through SHARDS/SHARD_COUNT...
    expect(fake.identifies.at(-1)).toMatchObject({ shard: [0, 1], intents: 1 | (1 << 9) | (1 << 12), tokenValid: true });
    // ...and its client knows it is managed: the manager can reach into it.
    expect(await manager.broadcastEval((c: Client) => c.shard?.ids ?? null)).toEqual([[0]]);
    expect(await manager.fetchClientValues('guilds.cache.size')).toEqual([1]);

    const h = fake.sendCommand({ name: 'pol', subcommand: 'card', options: { name: 'exchange:binance' } });
    expect((await h.callback(10_000)).type).toBe(5);
    const edit = await h.waitForEdit(20_000);
    const embed = (edit.body as { embeds?: { title?: string; image?: { url: string } }[] }).embeds?.[0];
    expect(embed?.title).toBe('Binance');
    // A standalone process loads the project's undici 7 before discord.js's own copy: the chart
    // upload is what broke there while it worked inside the test runner (see rest.ts).
    expect(edit.files).toHaveLength(1);
    expect(embed?.image?.url).toBe(`attachment://${edit.files[0]!.name}`);
  });

  it('refuses more than one shard without a shared digest database', async () => {
    const { log } = memoryLogger();
    await expect(startSharding({ discord: settingsFor(fake, GUILD_ID), log, totalShards: 2 })).rejects.toThrow(
      /^DATABASE_URL: required to run 2 shards/,
    );
  });

  it('gives each shard its own port and keeps Slack out of the shards', () => {
    const env = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1', DISCORD_TOKEN: 't', PORT: '3000' };
    expect(shardEnv(env, 2, 3000)).toEqual({ DISCORD_TOKEN: 't', PORT: '3002' });
    expect(shardEnv(env, 2, 0)).toEqual({ DISCORD_TOKEN: 't', PORT: '3000' });
  });
});
