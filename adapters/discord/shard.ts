import { fileURLToPath } from 'node:url';
import { Routes, type Shard, ShardingManager } from 'discord.js';
import { ConfigError } from '../../src/config-error.js';
import type { Logger } from '../../src/log.js';
import { describeError } from './errors.js';
import { restFor, type DiscordSettings } from './register.js';

/**
 * Many guilds: one process per shard under discord.js's ShardingManager. Each child is the
 * normal `polbot start` with only Discord configured; the manager only spawns, watches and
 * respawns them. The children's discord.js clients read their shard ids from the SHARDS and
 * SHARD_COUNT variables the manager sets, which startDiscord leaves alone.
 */

export interface ShardingOptions {
  discord: DiscordSettings;
  log: Logger;
  /** A number, or 'auto' for Discord's recommendation (asked through `discord.apiUrl` when set). */
  totalShards?: number | 'auto';
  /**
   * Digests live in one database that every shard reaches. The embedded PGlite store belongs to
   * a single process, so more than one shard needs PostgreSQL.
   */
  databaseUrl?: string;
  /** Port of the first shard's /healthz and /metrics; shard n listens on port + n. */
  basePort?: number;
  /** The script each shard runs, and its arguments; `bin/polbot.js start` by default. */
  file?: string;
  shardArgs?: string[];
  execArgv?: string[];
  /** Milliseconds between spawning shards; Discord allows one IDENTIFY per 5 s per bucket. */
  spawnDelayMs?: number;
  /** How long a shard may take to become ready. */
  spawnTimeoutMs?: number;
  respawn?: boolean;
  /**
   * Receives what the shard processes write to stdout and stderr, which they otherwise share with
   * this process's; for a supervisor that ships the lines elsewhere, and for tests that check them.
   */
  output?: (chunk: Buffer, shardId: number) => void;
}

const DEFAULT_FILE = fileURLToPath(new URL('../../bin/polbot.js', import.meta.url));

/** Discord's recommended shard count for this bot. */
export async function recommendedShards(discord: DiscordSettings): Promise<number> {
  const body = (await restFor(discord).get(Routes.gatewayBot())) as { shards?: unknown };
  const n = Number(body.shards);
  return Number.isInteger(n) && n >= 1 ? n : 1;
}

/**
 * What a shard process sees: the manager's environment without Slack (each shard would
 * otherwise open its own Slack connection and answer every Slack command once per shard) and
 * with a port of its own, so the health and metrics servers do not collide.
 */
export function shardEnv(env: NodeJS.ProcessEnv, shardId: number, basePort: number): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (!k.startsWith('SLACK_')) out[k] = v;
  if (basePort !== 0) out.PORT = String(basePort + shardId);
  return out;
}

export async function startSharding(opts: ShardingOptions): Promise<ShardingManager> {
  const { discord, log } = opts;
  // discord.js's own 'auto' always asks discord.com; asking here honours DISCORD_API_URL.
  const total = opts.totalShards === undefined || opts.totalShards === 'auto' ? await recommendedShards(discord) : opts.totalShards;
  if (total > 1 && !opts.databaseUrl) {
    throw new ConfigError(`DATABASE_URL: required to run ${total} shards (the embedded digest store belongs to one process)`);
  }
  const basePort = opts.basePort ?? 3000;
  const manager = new ShardingManager(opts.file ?? DEFAULT_FILE, {
    token: discord.token,
    totalShards: total,
    mode: 'process',
    respawn: opts.respawn ?? true,
    silent: opts.output !== undefined,
    shardArgs: opts.shardArgs ?? ['start'],
    ...(opts.execArgv ? { execArgv: opts.execArgv } : {}),
  });
  manager.on('shardCreate', (shard: Shard) => {
    // Set before the shard forks its process: spawn() passes this environment on.
    shard.env = shardEnv(shard.env as NodeJS.ProcessEnv, shard.id, basePort);
    log.info({ shard: shard.id, of: total }, 'discord shard spawning');
    const { output } = opts;
    if (output) {
      // Attached as the process is forked, before it can write: a respawned shard is covered too.
      shard.on('spawn', (child) => {
        for (const stream of [child.stdout, child.stderr]) stream?.on('data', (chunk: Buffer) => output(chunk, shard.id));
      });
    }
    shard.on('death', (child) =>
      log.warn({ shard: shard.id, exitCode: 'exitCode' in child ? child.exitCode : undefined }, 'discord shard exited'),
    );
    shard.on('ready', () => log.info({ shard: shard.id }, 'discord shard ready'));
    shard.on('error', (err) => log.error({ shard: shard.id, error: describeError(err) }, 'discord shard error'));
  });
  await manager.spawn({ amount: total, delay: opts.spawnDelayMs ?? 5_500, timeout: opts.spawnTimeoutMs ?? 120_000 });
  return manager;
}

/** Stops every shard process the manager started. */
export async function stopSharding(manager: ShardingManager): Promise<void> {
  // Without this the manager would respawn the shards it is being asked to stop.
  manager.respawn = false;
  for (const shard of manager.shards.values()) shard.kill();
}
