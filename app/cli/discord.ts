import { pathToFileURL } from 'node:url';
import { ConfigError, loadConfig, secretsOf } from '../config.js';
import { createLogger } from '../../src/log.js';
import { registerDiscordCommands, summarise } from '../../adapters/discord/register.js';
import { startSharding, stopSharding } from '../../adapters/discord/shard.js';

/**
 * `polbot register-discord [--dry-run]`: registers the slash commands in DISCORD_GUILD_ID when
 * set (instant), globally otherwise. Running it again with nothing changed writes nothing.
 */
export async function runRegisterDiscord(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(
      'Usage: polbot register-discord [--dry-run]\n\n' +
        'Registers the /pol and /pol-digest commands: in DISCORD_GUILD_ID when set (instant), globally otherwise.\n' +
        'Only writes when the registered definitions differ; --dry-run shows the difference and writes nothing.\n',
    );
    return 0;
  }
  const config = loadConfig(env);
  if (!config.discord) throw new ConfigError('DISCORD_TOKEN: required to register commands (with DISCORD_APPLICATION_ID)');
  // Progress goes to stdout as plain lines; the log only carries warnings and failures.
  const log = createLogger({ level: env.LOG_LEVEL ? config.logLevel : 'warn', secrets: secretsOf(config), destination: process.stderr });
  const result = await registerDiscordCommands({ discord: config.discord, log, dryRun: argv.includes('--dry-run') });
  process.stdout.write(`${summarise(result).join('\n')}\n`);
  return 0;
}

/**
 * `polbot discord-shards [--shards=N|auto]`: runs `polbot start` once per shard under
 * discord.js's ShardingManager until SIGINT or SIGTERM.
 */
export async function runDiscordShards(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(
      'Usage: polbot discord-shards [--shards=N|auto]\n\n' +
        'Runs one `polbot start` process per Discord shard (Discord only; Slack runs in its own process).\n' +
        'auto (the default) asks Discord for the recommended count. More than one shard needs DATABASE_URL.\n',
    );
    return 0;
  }
  const config = loadConfig(env);
  if (!config.discord) throw new ConfigError('DISCORD_TOKEN: required to run Discord shards (with DISCORD_APPLICATION_ID)');
  const arg = argv.find((a) => a.startsWith('--shards='))?.slice('--shards='.length);
  const totalShards = arg === undefined || arg === 'auto' ? 'auto' : Number(arg);
  if (totalShards !== 'auto' && (!Number.isInteger(totalShards) || totalShards < 1))
    throw new ConfigError('--shards: must be a positive integer or auto');
  const log = createLogger({ level: config.logLevel, secrets: secretsOf(config) });
  const manager = await startSharding({
    discord: config.discord,
    log,
    totalShards,
    basePort: config.http.port,
    ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
  });
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await stopSharding(manager);
  return 0;
}

// Until the polbot CLI routes these two commands here, they run directly:
//   node --import tsx app/cli/discord.ts register-discord [--dry-run]
//   node --import tsx app/cli/discord.ts discord-shards [--shards=N|auto]
const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;

if (invokedDirectly) {
  const [command, ...rest] = process.argv.slice(2);
  const run = command === 'register-discord' ? runRegisterDiscord : command === 'discord-shards' ? runDiscordShards : undefined;
  if (!run) {
    process.stderr.write('Usage: cli.ts register-discord [--dry-run] | discord-shards [--shards=N|auto]\n');
    process.exitCode = 2;
  } else {
    try {
      process.exitCode = await run(rest);
    } catch (err) {
      const message = err instanceof ConfigError ? `configuration error: ${err.message}` : `error: ${(err as Error).message}`;
      process.stderr.write(`polbot: ${message}\n`);
      process.exitCode = 1;
    }
  }
}
