import { startConsole } from '../../adapters/console/repl.js';
import type { Core } from '../../commands/core/index.js';
import { startCore } from '../core.js';
import { Health, problemLines } from '../../src/ops/health.js';
import { loadConfig, secretsOf } from '../config.js';
import { createLogger, type AppLogger } from '../../src/log.js';
import { consoleBanner } from './banner.js';

/** A stray rejection is a bug to log, not a reason to drop every conversation in flight. */
function keepRunning(log: AppLogger): void {
  process.on('unhandledRejection', (reason) => log.error({ err: reason }, 'unhandled rejection'));
  process.on('uncaughtException', (err) => log.error({ err }, 'uncaught exception'));
}

/** Console start-up waits a moment for the upstream check, and says in plain words what it found wrong. */
const CONSOLE_CHECK_WAIT_MS = 2_000;

async function consoleStartupCheck(core: Core): Promise<void> {
  const found = await Promise.race([
    new Health(core.upstream.source).check(),
    new Promise<null>((resolve) => setTimeout(() => resolve(null), CONSOLE_CHECK_WAIT_MS).unref()),
  ]).catch(() => null);
  const lines = found ? problemLines(found) : [];
  for (const line of lines) process.stderr.write(`polbot: ${line}\n`);
  if (lines.length) process.stderr.write('polbot: /pol health shows the current state.\n');
}

export async function runStart(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(
      'Usage: polbot start\n\nRuns the bot with the adapters the environment configures; with none, an interactive console.\n',
    );
    return 0;
  }
  const config = loadConfig();
  const adapters = Boolean(config.slack || config.discord || config.telegram);
  if (!adapters) {
    // In the console, logs would interleave with answers: they go to stderr, warnings and worse only.
    const log = createLogger({
      level: process.env.LOG_LEVEL ? config.logLevel : 'warn',
      secrets: secretsOf(config),
      destination: process.stderr,
    });
    const core = await startCore(config, { log });
    log.scrubber.addSecrets(core.upstream.secrets);
    await consoleStartupCheck(core);
    try {
      await startConsole(core, { banner: consoleBanner(core.upstream.sim !== null, config.source) });
    } finally {
      await core.close();
    }
    return 0;
  }

  const log = createLogger({ level: config.logLevel, secrets: secretsOf(config) });
  keepRunning(log);
  // Signals are caught from the first moment: one arriving during start-up stops polbot once it is up.
  const signalled = new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  // Bolt and discord.js are loaded only when an adapter is configured.
  const { startBot } = await import('../bot.js');
  const bot = await startBot(config, log);
  log.info(
    {
      slack: bot.slack?.mode ?? 'off',
      discord: bot.discord ? 'on' : 'off',
      source: config.source,
      demo: bot.core.upstream.sim !== null,
      port: bot.port,
    },
    bot.core.upstream.sim ? 'polbot started in DEMO MODE: answers use SIMULATED data' : 'polbot started',
  );
  const signal = await signalled;
  log.info({ signal }, 'shutting down: finishing answers under way');
  // Whatever happens below, the process must not hang past the platform's patience.
  const hardStop = setTimeout(() => process.exit(1), 15_000);
  hardStop.unref();
  await bot.stop();
  log.info('stopped');
  return 0;
}
