import { startConsole } from '../../adapters/console/repl.js';
import { createCore } from '../app/core.js';
import { loadConfig, secretsOf } from '../config.js';
import { createLogger } from '../log.js';
import { consoleBanner } from './banner.js';

export async function runStart(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write('Usage: polbot start\n\nRuns the bot with the adapters the environment configures; with none, an interactive console.\n');
    return 0;
  }
  const config = loadConfig();
  const adapters = Boolean(config.slack || config.discord);
  // In the console, logs would interleave with answers: they go to stderr, warnings and worse only.
  const log = createLogger({
    level: adapters ? config.logLevel : process.env.LOG_LEVEL ? config.logLevel : 'warn',
    secrets: secretsOf(config),
    destination: adapters ? process.stdout : process.stderr,
  });
  const core = await createCore(config, { log });
  log.scrubber.addSecrets(core.upstream.secrets);
  try {
    await startConsole(core, { banner: consoleBanner(core.upstream.sim !== null, config.source) });
  } finally {
    await core.close();
  }
  return 0;
}
