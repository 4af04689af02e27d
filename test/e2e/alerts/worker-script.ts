/**
 * One polbot replica running the alert service, as a separate process the crash test can kill.
 * Run with `node --import tsx test/e2e/alerts/worker-script.ts`. It is wired as `polbot start` wires it
 * (app/bot.ts): the configuration from the environment (SLACK_*, DISCORD_*, DATABASE_URL or
 * POLBOT_DATA_DIR, HOST, PORT), the embedded simulator, the real Slack and Discord adapters and
 * their alert deliverers, the real AlertService. Only its timings are the test's:
 *   ALERT_WORKER_LEASE  lease of every claim, in ms
 *   ALERT_WORKER_TICK   pause between ticks, in ms
 * It prints `ready` once connected, waits for `go` on stdin, then ticks as `AlertService.start`
 * does, one tick after another, printing `tick {...}` after every tick that did anything; logs go
 * to stderr. SIGTERM stops it cleanly.
 */
import { createInterface } from 'node:readline';
import { discordDeliverer, startDiscord } from '../../../adapters/discord/index.js';
import { slackDeliverer, startSlack } from '../../../adapters/slack/index.js';
import { startCore } from '../../../app/core.js';
import { AlertService, type AlertTick } from '../../../src/alerts/service.js';
import { AlertStore } from '../../../src/alerts/store.js';
import { loadConfig, secretsOf } from '../../../app/config.js';
import { openDb } from '../../../src/db/index.js';
import { migrate } from '../../../src/db/migrations.js';
import { createLogger } from '../../../src/log.js';

const env = (name: string): number => {
  const v = Number(process.env[name]);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`${name} is not set`);
  return v;
};

const leaseMs = env('ALERT_WORKER_LEASE');
const tickMs = env('ALERT_WORKER_TICK');
const config = loadConfig();
if (!config.slack || !config.discord) throw new Error('the worker needs both SLACK_BOT_TOKEN and DISCORD_TOKEN');
const log = createLogger({ level: config.logLevel, secrets: secretsOf(config), destination: process.stderr });
const core = await startCore(config, { log });
const [slack, discord, db] = await Promise.all([
  startSlack({ core, slack: config.slack, http: config.http, log: log.child({ adapter: 'slack' }) }),
  startDiscord({ core, discord: config.discord, log: log.child({ adapter: 'discord' }) }),
  openDb({ ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}), dataDir: config.dataDir }),
]);
await migrate(db);
const alerts = new AlertService({
  store: new AlertStore(db),
  deps: core.ctx,
  deliverers: [slackDeliverer(slack), discordDeliverer(discord)],
  complete: core.complete,
  log: log.child({ component: 'alerts' }),
  instanceId: `worker-${process.pid}`,
  leaseMs,
  tickMs,
});

let stopping = false;
let wake: (() => void) | undefined;
process.on('SIGTERM', () => {
  stopping = true;
  wake?.();
});
process.stdout.write('ready\n');
// Connected, it waits for the test's `go` on stdin, so that how long start-up takes decides nothing.
const go = createInterface({ input: process.stdin });
await new Promise<void>((resolve) => go.on('line', (l) => l === 'go' && resolve()));
go.close();

const busy = (r: AlertTick) => r.check.rules + r.posted + r.confirmed + r.followups + r.suppressed + r.failed + r.lost > 0;
while (!stopping) {
  const report = await alerts.tick();
  if (busy(report)) {
    const { check, ...rest } = report;
    process.stdout.write(
      `tick ${JSON.stringify({ ...rest, rules: check.rules, opened: check.events.filter((e) => e.type === 'opened').length })}\n`,
    );
  }
  await new Promise<void>((resolve) => {
    wake = resolve;
    setTimeout(resolve, tickMs).unref();
  });
}
await db.close();
await discord.stop();
await slack.stop();
await core.close();
