/**
 * One polbot replica running the alert service, as a separate process the crash tests can kill.
 * Run with `node --import tsx test/e2e/alerts/worker-script.ts`. It is wired as `polbot start` wires it
 * (app/bot.ts): the configuration from the environment (SLACK_*, DISCORD_*, POLBOT_DESTINATIONS
 * with its webhook secrets and PAGERDUTY_EVENTS_URL, DATABASE_URL or POLBOT_DATA_DIR, HOST, PORT),
 * the embedded simulator, the real adapters of the platforms configured and their alert
 * deliverers, the real Outbox when destinations are named, the real AlertService. Only its timings
 * are the test's:
 *   ALERT_WORKER_LEASE  lease of every claim (the outbox's too), in ms
 *   ALERT_WORKER_TICK   pause between ticks, in ms
 * It prints `ready` once connected, waits for `go` on stdin, then ticks as `AlertService.start`
 * does, one tick after another (checks, messages, follow-ups, escalation steps, events for the
 * destinations), printing `tick {...}` after every tick that did anything; logs go to stderr.
 * SIGTERM stops it cleanly.
 */
import { createInterface } from 'node:readline';
import { discordDeliverer, startDiscord } from '../../../adapters/discord/index.js';
import { slackDeliverer, startSlack } from '../../../adapters/slack/index.js';
import { startCore } from '../../../app/core.js';
import { Outbox } from '../../../src/alerts/outbox.js';
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
if (!config.slack && !config.discord && !config.destinations.length)
  throw new Error('the worker needs SLACK_BOT_TOKEN, DISCORD_TOKEN or POLBOT_DESTINATIONS');
const log = createLogger({ level: config.logLevel, secrets: secretsOf(config), destination: process.stderr });
const core = await startCore(config, { log });
const [slack, discord, db] = await Promise.all([
  config.slack ? startSlack({ core, slack: config.slack, http: config.http, log: log.child({ adapter: 'slack' }) }) : null,
  config.discord ? startDiscord({ core, discord: config.discord, log: log.child({ adapter: 'discord' }) }) : null,
  openDb({ ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}), dataDir: config.dataDir }),
]);
await migrate(db);
const instanceId = `worker-${process.pid}`;
const alerts = new AlertService({
  store: new AlertStore(db),
  deps: core.ctx,
  deliverers: [...(slack ? [slackDeliverer(slack)] : []), ...(discord ? [discordDeliverer(discord)] : [])],
  complete: core.complete,
  log: log.child({ component: 'alerts' }),
  instanceId,
  leaseMs,
  tickMs,
  ...(config.destinations.length
    ? {
        outbox: new Outbox({
          db,
          destinations: config.destinations,
          instance: instanceId,
          leaseMs,
          log: log.child({ component: 'alert-destinations' }),
        }),
      }
    : {}),
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

const outbound = (r: AlertTick) => (r.outbound ? r.outbound.sent + r.outbound.retried + r.outbound.failed + r.outbound.lost : 0);
const busy = (r: AlertTick) =>
  r.check.rules + r.posted + r.confirmed + r.followups + r.escalated + r.suppressed + r.failed + r.lost + outbound(r) > 0;
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
await discord?.stop();
await slack?.stop();
await core.close();
