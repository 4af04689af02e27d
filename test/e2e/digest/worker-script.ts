/**
 * One polbot replica running one scheduler tick, as a separate process the crash test can kill.
 * Run with `node --import tsx test/e2e/digest/worker-script.ts`. It is wired as `polbot start` wires it
 * (app/bot.ts): the configuration from the environment (SLACK_*, DISCORD_*, DATABASE_URL or
 * POLBOT_DATA_DIR, HOST, PORT), the real Slack and Discord adapters and their digest deliverers.
 * Only the clock is the test's, and the scheduler ticks once instead of on its timer:
 *   DIGEST_WORKER_NOW    the clock, epoch ms
 *   DIGEST_WORKER_LEASE  lease in ms
 * It prints `ready` once connected and `report {...}` after the tick; logs go to stderr.
 */
import { discordDeliverer, startDiscord } from '../../../adapters/discord/index.js';
import { slackDeliverer, startSlack } from '../../../adapters/slack/index.js';
import { startCore } from '../../../app/core.js';
import { loadConfig, secretsOf } from '../../../app/config.js';
import { openDb } from '../../../src/db/index.js';
import { createDigests } from '../../../src/digest/index.js';
import { createLogger } from '../../../src/log.js';

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};

const now = Number(env('DIGEST_WORKER_NOW'));
const config = loadConfig();
if (!config.slack || !config.discord) throw new Error('the worker needs both SLACK_BOT_TOKEN and DISCORD_TOKEN');
const log = createLogger({ level: config.logLevel, secrets: secretsOf(config), destination: process.stderr });
const core = await startCore(config, { log, now: () => now });
// The store opens (as createDigests would open it) while the adapters connect: PGlite takes a
// few seconds to open its data directory.
const [slack, discord, db] = await Promise.all([
  startSlack({ core, slack: config.slack, http: config.http, log: log.child({ adapter: 'slack' }) }),
  startDiscord({ core, discord: config.discord, log: log.child({ adapter: 'discord' }) }),
  openDb({ ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}), dataDir: config.dataDir }),
]);
const digests = await createDigests({
  db,
  ctx: core.ctx,
  deliverers: [slackDeliverer(slack), discordDeliverer(discord)],
  log,
  now: () => now,
  scheduler: {
    instanceId: `worker-${process.pid}`,
    leaseMs: Number(env('DIGEST_WORKER_LEASE')),
    retry: { attempts: 1, backoffMs: 1, maxWaitMs: 1 },
  },
});
process.stdout.write('ready\n');
const report = await digests.scheduler.tick(now);
process.stdout.write(`report ${JSON.stringify(report)}\n`);
await digests.stop();
await db.close();
await discord.stop();
await slack.stop();
await core.close();
