import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

/**
 * The digest store speaks plain PostgreSQL to one of two engines: embedded PGlite (the default,
 * one process, persisted on disk) or a PostgreSQL server through `pg` (any number of replicas).
 * Both run the same SQL; nothing above this file knows which one it has.
 *
 * Conventions that keep the engines interchangeable: one statement per `query` (PGlite's extended
 * protocol takes no more), counts cast to `int` (pg returns `bigint` as a string), JSON passed as
 * text with an explicit `::jsonb` cast, times as `timestamptz` (both return a Date).
 */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
}

export interface Db extends Queryable {
  readonly engine: 'pglite' | 'postgres';
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface DbOptions {
  /** `postgres://...`: use that server. Unset: embedded PGlite. */
  databaseUrl?: string;
  /** PGlite's data lives in `<dataDir>/digests`; without a dataDir it is in memory (tests). */
  dataDir?: string;
  /** Connections in the pg pool. */
  poolSize?: number;
}

export async function openDb(options: DbOptions): Promise<Db> {
  return options.databaseUrl ? openPostgres(options.databaseUrl, options.poolSize ?? 10) : openPglite(options.dataDir);
}

export async function openPglite(dataDir?: string): Promise<Db> {
  let dir: string | undefined;
  if (dataDir !== undefined) {
    dir = resolve(dataDir, 'digests');
    mkdirSync(dir, { recursive: true });
  }
  const lite = dir ? await PGlite.create(dir) : await PGlite.create();
  return {
    engine: 'pglite',
    async query<T>(sql: string, params: readonly unknown[] = []) {
      return (await lite.query<T>(sql, [...params])).rows;
    },
    transaction<T>(fn: (tx: Queryable) => Promise<T>) {
      return lite.transaction(async (tx) =>
        fn({
          async query<R>(sql: string, params: readonly unknown[] = []) {
            return (await tx.query<R>(sql, [...params])).rows;
          },
        }),
      );
    },
    async close() {
      if (!lite.closed) await lite.close();
    },
  };
}

export async function openPostgres(url: string, poolSize: number): Promise<Db> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, application_name: 'polbot-digests' });
  // An idle client whose server went away emits 'error' on the pool; unhandled, it would end the process.
  pool.on('error', () => undefined);
  const client = await pool.connect();
  client.release();
  return {
    engine: 'postgres',
    async query<T>(sql: string, params: readonly unknown[] = []) {
      return (await pool.query(sql, [...params])).rows as T[];
    },
    async transaction<T>(fn: (tx: Queryable) => Promise<T>) {
      const conn = await pool.connect();
      let broken: unknown;
      try {
        await conn.query('BEGIN');
        const result = await fn({
          async query<R>(sql: string, params: readonly unknown[] = []) {
            return (await conn.query(sql, [...params])).rows as R[];
          },
        });
        await conn.query('COMMIT');
        return result;
      } catch (err) {
        await conn.query('ROLLBACK').catch((e: unknown) => {
          broken = e;
        });
        throw err;
      } finally {
        // A connection whose rollback failed is in an unknown state; it must not go back to the pool.
        conn.release(broken instanceof Error ? broken : undefined);
      }
    },
    close: () => pool.end(),
  };
}

/** `timestamptz` arrives as a Date from both engines; strings and numbers are accepted for safety. */
export function ms(value: unknown): number {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return new Date(value).getTime();
  throw new TypeError(`not a timestamp: ${String(value)}`);
}

export function msOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : ms(value);
}
