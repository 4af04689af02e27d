import type { PostDeps } from '../delivery/deps.js';
import type { Logger } from '../log.js';
import type { ContentOptions } from './content.js';
import { migrate, openDatabase, type Db } from '../db/index.js';
import type { Deliverer } from '../delivery/port.js';
import { DigestScheduler, type SchedulerOptions } from './scheduler.js';
import { createDigestService, type DigestLimits, type DigestService } from './service.js';
import { DigestStore } from './store.js';

export { DeliveryError, type Deliverer } from '../delivery/port.js';
export { DigestScheduler, type TickReport } from './scheduler.js';
export { DigestStore, type Digest, type Run } from './store.js';
export type { DigestLimits, DigestService } from './service.js';

export interface DigestsOptions {
  /** Where the store lives: DATABASE_URL (PostgreSQL) or PGlite under POLBOT_DATA_DIR. */
  config?: { databaseUrl?: string; dataDir?: string };
  /** An already open database instead (tests); it is not closed by `stop`. */
  db?: Db;
  ctx: PostDeps;
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
 * Wires the digest store, the scheduler and the command service to the database, the core's data
 * and the platforms' deliverers. Without a database handed in, it opens polbot's own.
 */
export async function createDigests(o: DigestsOptions): Promise<Digests> {
  const owned = !o.db;
  const databaseOptions = {
    ...(o.config?.databaseUrl ? { databaseUrl: o.config.databaseUrl } : {}),
    ...(o.config?.dataDir ? { dataDir: o.config.dataDir } : {}),
  };
  // A database handed in is brought to the current schema too: migrating is idempotent.
  const db = o.db ? await migrated(o.db) : await openDatabase(databaseOptions);
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

async function migrated(db: Db): Promise<Db> {
  await migrate(db);
  return db;
}
