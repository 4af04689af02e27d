import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { openPglite, openPostgres, type Db } from '../../../src/db/connection.js';
import type { DeliveryError, Deliverer } from '../../../src/delivery/port.js';
import type { Reply } from '../../../src/reply/model.js';

export type EngineName = 'pglite' | 'postgres';

/** Both engines run every store and scheduler test; describe.each(ENGINES). */
export const ENGINES: EngineName[] = ['pglite', 'postgres'];

export interface TestDatabase {
  engine: EngineName;
  /** For PostgreSQL, a database of its own for this test file. */
  url: string | null;
  /** A new handle on the same database: a second replica (PGlite, being in-process, shares one). */
  connect(): Promise<Db>;
  /** Closes every handle and drops the database. */
  dispose(): Promise<void>;
}

function adminClient(): pg.Client {
  return new pg.Client({ connectionString: inject('databaseUrl') });
}

/** A database per test file on the shared test server, so files running in parallel never meet. */
export async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `polbot_digest_${randomBytes(6).toString('hex')}`;
  const admin = adminClient();
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(inject('databaseUrl'));
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = adminClient();
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export async function testDatabase(engine: EngineName): Promise<TestDatabase> {
  const handles: Db[] = [];
  if (engine === 'pglite') {
    const db = await openPglite();
    handles.push(db);
    return {
      engine,
      url: null,
      connect: async () => db,
      dispose: async () => db.close(),
    };
  }
  const { url, drop } = await createPostgresDatabase();
  return {
    engine,
    url,
    async connect() {
      const db = await openPostgres(url, 10);
      handles.push(db);
      return db;
    },
    async dispose() {
      await Promise.all(handles.map((h) => h.close()));
      await drop();
    },
  };
}

/** Time that moves only when a test says so. */
export class ManualClock {
  constructor(public t: number) {}
  static at(iso: string): ManualClock {
    return new ManualClock(Date.parse(iso));
  }
  now = (): number => this.t;
  set(iso: string): number {
    this.t = Date.parse(iso);
    return this.t;
  }
  advance(ms: number): number {
    this.t += ms;
    return this.t;
  }
}

export interface Posted {
  channelId: string;
  key: string;
  reply: Reply;
}

/**
 * An in-memory platform: keeps every accepted post, can be told to fail, and can look up keys the
 * way a real adapter would search the channel's recent messages.
 */
export class MemoryDeliverer implements Deliverer {
  readonly posted: Posted[] = [];
  attempts = 0;
  /** Return an error to throw for this attempt, or undefined to accept. */
  fail: ((channelId: string, key: string, attempt: number) => DeliveryError | Error | undefined) | undefined;
  /** Milliseconds before answering (real time), to interleave replicas. */
  delay: () => number = () => 0;
  /** Without it the deliverer offers no `find`, like an adapter that cannot search. */
  readonly find: Deliverer['find'];

  constructor(
    readonly platform: 'slack' | 'discord' = 'slack',
    opts: { searchable?: boolean } = {},
  ) {
    this.find =
      opts.searchable === false
        ? undefined
        : async (channelId, key) => {
            const i = this.posted.findIndex((p) => p.channelId === channelId && p.key === key);
            return i === -1 ? null : String(i);
          };
  }

  async post(channelId: string, reply: Reply): Promise<string> {
    this.attempts++;
    // A real platform shows the key in the footer, and a search finds it there.
    const key = reply.kind === 'table' ? reply.footer?.notes?.find((n) => n.startsWith('digest #')) : undefined;
    const wait = this.delay();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const err = this.fail?.(channelId, key ?? '', this.attempts);
    if (err) throw err;
    if (key === undefined) throw new Error('posted reply does not carry a digest key');
    this.posted.push({ channelId, key, reply });
    return String(this.posted.length - 1);
  }

  async update(): Promise<void> {
    throw new Error('digests never redraw a message');
  }

  async followUp(): Promise<void> {
    throw new Error('digests never follow a message up');
  }

  keys(channelId?: string): string[] {
    return this.posted.filter((p) => channelId === undefined || p.channelId === channelId).map((p) => p.key);
  }
}

export const HOUR = 3_600_000;
export const MINUTE = 60_000;
