import { runDiscordShards, runRegisterDiscord } from '../../adapters/discord/cli.js';
import { ConfigError } from '../config.js';
import { runAsk } from './ask.js';
import { runSim } from './sim.js';
import { runStart } from './start.js';

const USAGE = `Usage: polbot <command> [options]

Commands:
  start                     run the bot: Slack and Discord from the environment, or an interactive console
  ask "<text>"              answer one /pol command and exit (--json, --chart-out file.png)
  sim [--port N] [--seed S] run the upstream simulator (REST + MCP) with optional fault injection
  register-discord          register the Discord slash commands (idempotent; --dry-run shows changes)
  discord-shards            run the Discord adapter sharded (discord.js ShardingManager)
  help                      show this text

Run "polbot <command> --help" for the options of a command.`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'sim':
      return runSim(rest);
    case 'start':
      return runStart(rest);
    case 'ask':
      return runAsk(rest);
    case 'register-discord':
      return runRegisterDiscord(rest);
    case 'discord-shards':
      return runDiscordShards(rest);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return 0;
    default:
      process.stderr.write(`polbot: unknown command '${command}'\n\n${USAGE}\n`);
      return 2;
  }
}

try {
  const code = await main(process.argv.slice(2));
  if (code !== 0) process.exitCode = code;
} catch (err) {
  // Start-up failures are one clear line; a stack trace helps nobody configuring a bot.
  const message = err instanceof ConfigError ? `configuration error: ${err.message}` : `error: ${(err as Error).message}`;
  process.stderr.write(`polbot: ${message}\n`);
  process.exitCode = 1;
}
