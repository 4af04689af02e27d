import type { Db } from './db.js';

export interface Migration {
  version: number;
  name: string;
  /** One statement per entry: PGlite's `query` runs a single statement. */
  statements: readonly string[];
}

/**
 * Append-only: a released migration is never edited, a change is a new version. Times are
 * `timestamptz` and every instant the scheduler compares comes from its own clock (passed as a
 * parameter), never from the server's `now()`, so tests control time and replicas agree on it.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'digests, runs and snapshots',
    statements: [
      `CREATE TABLE digests (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        platform text NOT NULL CHECK (platform IN ('slack', 'discord', 'console')),
        channel_id text NOT NULL,
        entities jsonb NOT NULL,
        cron text NOT NULL,
        schedule_label text NOT NULL,
        timezone text NOT NULL,
        state text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'paused', 'failing')),
        state_reason text,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL,
        next_slot timestamptz,
        last_slot timestamptz,
        last_delivered_at timestamptz,
        last_error text
      )`,
      `CREATE INDEX digests_by_channel ON digests (platform, channel_id)`,
      `CREATE INDEX digests_due ON digests (next_slot) WHERE state = 'active'`,
      // One row per (digest, slot): the primary key is what makes a slot deliverable only once.
      `CREATE TABLE digest_runs (
        digest_id integer NOT NULL REFERENCES digests (id) ON DELETE CASCADE,
        slot timestamptz NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'claimed', 'delivered', 'skipped', 'failed')),
        not_before timestamptz NOT NULL,
        claimed_by text,
        lease_until timestamptz,
        attempts integer NOT NULL DEFAULT 0,
        parts_total integer,
        parts_sent integer NOT NULL DEFAULT 0,
        content jsonb,
        reason text,
        covers integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL,
        finished_at timestamptz,
        PRIMARY KEY (digest_id, slot)
      )`,
      `CREATE INDEX digest_runs_open ON digest_runs (not_before) WHERE status IN ('pending', 'claimed')`,
    ],
  },
];

/** Serialises migrators across replicas; any constant works as long as every replica uses the same. */
const LOCK = `SELECT pg_advisory_xact_lock(hashtext('polbot:digest:migrations'))`;

/**
 * Applies what is missing, in order, inside one transaction holding an advisory lock: a second
 * replica starting at the same moment waits for the lock, then finds everything applied.
 */
export async function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  return db.transaction(async (tx) => {
    await tx.query(LOCK);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const done = new Set((await tx.query<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version));
    const known = Math.max(0, ...migrations.map((m) => m.version));
    const newest = Math.max(0, ...done);
    if (newest > known) {
      throw new Error(`the digest database is at schema version ${newest}, newer than this polbot knows (${known}); upgrade polbot`);
    }
    const applied: number[] = [];
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(m.version)) continue;
      for (const sql of m.statements) await tx.query(sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(m.version);
    }
    return applied;
  });
}
