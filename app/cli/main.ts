import { ConfigError } from '../config.js';

// Each command loads only what it runs: `polbot ask` and the console never load Bolt or
// discord.js, which together take longer to import than the answer takes to compute.

const USAGE = `Usage: polbot <command> [options]

Commands:
  start                     run the bot: Slack, Discord and Telegram from the environment, or an interactive console
  ask "<text>"              answer one /pol command and exit (--json, --chart-out file.png)
  doctor                    check the configured upstream against what polbot expects, route by route
  sim [--port N] [--seed S] run the upstream simulator (REST + MCP) with optional fault injection
  register-discord          register the Discord slash commands (idempotent; --dry-run shows changes)
  discord-shards            run the Discord adapter sharded (discord.js ShardingManager)
  help                      show this text

Run "polbot <command> --help" for the options of a command.`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'sim':
      return (await import('./sim.js')).runSim(rest);
    case 'start':
      return (await import('./start.js')).runStart(rest);
    case 'ask':
      return (await import('./ask.js')).runAsk(rest);
    case 'doctor':
      return (await import('./doctor.js')).runDoctor(rest);
    case 'register-discord':
      return (await import('./discord.js')).runRegisterDiscord(rest);
    case 'discord-shards':
      return (await import('./discord.js')).runDiscordShards(rest);
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
