import type { Caller } from '../../../commands/kit/context.js';
import type { Core } from '../../../commands/core/core.js';
import type { Db } from '../../../src/db/connection.js';
import type { Deliverer } from '../../../src/delivery/port.js';
import { migrate } from '../../../src/db/migrations.js';
import { DigestScheduler, type SchedulerOptions } from '../../../src/digest/scheduler.js';
import { createDigestService, type DigestLimits } from '../../../src/digest/service.js';
import { DigestStore } from '../../../src/digest/store.js';
import type { Reply } from '../../../src/reply/model.js';
import type { SimStore } from '../../../src/sim/data/store.js';
import { demoCore } from '../core.js';
import { ManualClock, testDatabase, type EngineName, type TestDatabase } from './helpers.js';

export const slackCaller = (channelId: string, userId = 'U-ADMIN', canManageDigests = true): Caller => ({
  platform: 'slack',
  userId,
  channelId,
  canManageDigests,
});
export const discordCaller = (channelId: string, userId = '300000000000000001', canManageDigests = true): Caller => ({
  platform: 'discord',
  userId,
  channelId,
  canManageDigests,
});

/** A demo core (in-process simulator) with digests on the given engine and a controllable clock. */
export interface Harness {
  clock: ManualClock;
  core: Core;
  sim: SimStore;
  t: TestDatabase;
  db: Db;
  store: DigestStore;
  ask(text: string, caller: Caller): Promise<Reply>;
  /** Adds a digest through the command, as a person would; returns its id. */
  add(text: string, caller: Caller): Promise<number>;
  scheduler(deliverers: readonly Deliverer[], options?: Partial<SchedulerOptions>): DigestScheduler;
  /** Forget cached upstream data, as if its time to live had passed. */
  expireCache(): void;
  /** Removes every digest (and with them runs), so tests of one file do not see each other's. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

export async function createHarness(
  engine: EngineName,
  opts: { start?: string; limits?: Partial<DigestLimits>; env?: Record<string, string> } = {},
): Promise<Harness> {
  const clock = ManualClock.at(opts.start ?? '2026-11-20T12:00:00Z');
  // Per-person rate limits would throttle a test that types fast; they have their own tests.
  const core = await demoCore({ RATE_LIMIT_PER_USER: '0', ...opts.env }, { now: clock.now });
  const t = await testDatabase(engine);
  const db = await t.connect();
  await migrate(db);
  const store = new DigestStore(db);
  core.ctx.digests = createDigestService({ store, ctx: core.ctx, ...(opts.limits ? { limits: opts.limits } : {}) });
  const ask = async (text: string, caller: Caller) => (await core.run(text, caller)).reply;
  return {
    clock,
    core,
    sim: core.upstream.sim!.store,
    t,
    db,
    store,
    ask,
    async add(text, caller) {
      const reply = await ask(text, caller);
      const m = reply.kind === 'text' ? /^Digest #(\d+) added$/.exec(reply.title ?? '') : null;
      if (!m) throw new Error(`digest was not added: ${JSON.stringify(reply).slice(0, 400)}`);
      return Number(m[1]);
    },
    scheduler(deliverers, options = {}) {
      return new DigestScheduler({
        store,
        ctx: core.ctx,
        deliverers,
        now: clock.now,
        retry: { attempts: 3, backoffMs: 1, maxWaitMs: 5 },
        ...options,
      });
    },
    expireCache: () => core.ctx.source.cache.clear(),
    reset: async () => void (await db.query('DELETE FROM digests')),
    async close() {
      await core.close();
      await t.dispose();
    },
  };
}
