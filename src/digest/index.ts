import type { DigestDeps } from './deps.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { ContentOptions } from './content.js';
import { openDb, type Db } from './db.js';
import type { Deliverer } from './deliver.js';
import { migrate } from './migrations.js';
import { DigestScheduler, type SchedulerOptions } from './scheduler.js';
import { createDigestService, type DigestLimits, type DigestService } from './service.js';
import { DigestStore } from './store.js';

export { DeliveryError, type Deliverer } from './deliver.js';
export { DigestScheduler, type TickReport } from './scheduler.js';
export { DigestStore, type Digest, type Run } from './store.js';
export { slackCanManageDigests } from './permissions.js';
export type { DigestLimits, DigestService } from './service.js';
export { openDb, type Db } from './db.js';
export { migrate } from './migrations.js';

export interface DigestsOptions {
  /** Where the store lives: DATABASE_URL (PostgreSQL) or PGlite under POLBOT_DATA_DIR. */
  config?: Pick<Config, 'databaseUrl' | 'dataDir'>;
  /** An already open database instead (tests); it is not closed by `stop`. */
  db?: Db;
  ctx: DigestDeps;
  deliverers: readonly Deliverer[];
  log?: Logger;
  now?: () => number;
  limits?: Partial<DigestLimits>;
  content?: Partial<ContentOptions>;
  scheduler?: Omit<SchedulerOptions, 'store' | 'ctx' | 'deliverers' | 'log' | 'now' | 'content'>;
}

export interface Digests {
  db: Db;
  store: DigestStore;
  scheduler: DigestScheduler;
  /** For the command core: set `ctx.digests = digests.service`. */
  service: DigestService;
  /** Starts the scheduler's timer. */
  start(): void;
  /** Stops the timer, waits for deliveries under way, closes the database if it was opened here. */
  stop(): Promise<void>;
}

/**
 * Opens the store (migrating it: safe when replicas start together), and wires the scheduler and
 * the command service to the core's context and the platforms' deliverers.
 */
export async function createDigests(o: DigestsOptions): Promise<Digests> {
  const owned = !o.db;
  const db =
    o.db ??
    (await openDb({
      ...(o.config?.databaseUrl ? { databaseUrl: o.config.databaseUrl } : {}),
      ...(o.config?.dataDir ? { dataDir: o.config.dataDir } : {}),
    }));
  try {
    await migrate(db);
  } catch (err) {
    if (owned) await db.close();
    throw err;
  }
  const store = new DigestStore(db);
  const scheduler = new DigestScheduler({
    ...o.scheduler,
    store,
    ctx: o.ctx,
    deliverers: o.deliverers,
    ...(o.log ? { log: o.log.child({ component: 'digests' }) } : {}),
    ...(o.now ? { now: o.now } : {}),
    ...(o.content ? { content: o.content } : {}),
  });
  const service = createDigestService({
    store,
    ctx: o.ctx,
    ...(o.limits ? { limits: o.limits } : {}),
    ...(o.content ? { content: o.content } : {}),
  });
  return {
    db,
    store,
    scheduler,
    service,
    start: () => scheduler.start(),
    async stop() {
      await scheduler.stop();
      if (owned) await db.close();
    },
  };
}
