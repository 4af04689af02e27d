/**
 * One polbot replica running one scheduler tick, as a separate process the crash test can kill.
 * Run with `node --import tsx test/digest/worker-script.ts`; settings come from the environment:
 *   DIGEST_WORKER_DB     postgres://... or pglite:<data dir>
 *   DIGEST_WORKER_SLACK  Slack Web API base (the test's proxy)
 *   DIGEST_WORKER_TOKEN  bot token
 *   DIGEST_WORKER_NOW    the clock, epoch ms
 *   DIGEST_WORKER_LEASE  lease in ms
 * It prints `ready` once connected and `report {...}` after the tick.
 */
import { createCore } from '../../commands/core/core.js';
import { loadConfig } from '../../src/config.js';
import { openPglite, openPostgres } from '../../src/digest/db.js';
import { createDigests } from '../../src/digest/index.js';
import { testSlackDeliverer } from './deliverers.js';

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};

const now = Number(env('DIGEST_WORKER_NOW'));
const dbSpec = env('DIGEST_WORKER_DB');
const db = dbSpec.startsWith('pglite:') ? await openPglite(dbSpec.slice('pglite:'.length)) : await openPostgres(dbSpec, 4);
const core = await createCore(loadConfig({ POL_TIMEOUT_MS: '3000', RATE_LIMIT_PER_USER: '0' }), { now: () => now });
const digests = await createDigests({
  db,
  ctx: core.ctx,
  deliverers: [testSlackDeliverer({ apiUrl: env('DIGEST_WORKER_SLACK'), token: env('DIGEST_WORKER_TOKEN'), searchHistory: true })],
  now: () => now,
  scheduler: { instanceId: `worker-${process.pid}`, leaseMs: Number(env('DIGEST_WORKER_LEASE')), retry: { attempts: 1, backoffMs: 1, maxWaitMs: 1 } },
});
process.stdout.write('ready\n');
const report = await digests.scheduler.tick(now);
process.stdout.write(`report ${JSON.stringify(report)}\n`);
await digests.stop();
await db.close();
await core.close();
