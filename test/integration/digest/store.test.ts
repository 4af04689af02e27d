import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite, openPostgres, type Db } from '../../../src/db/connection.js';
import { migrate, MIGRATIONS } from '../../../src/db/migrations.js';
import { buildSchedule } from '../../../src/digest/schedule.js';
import { DigestStore, type NewDigest } from '../../../src/digest/store.js';
import { createPostgresDatabase, ENGINES, testDatabase, type TestDatabase } from '../../helpers/digest/helpers.js';

const schedule = (() => {
  const s = buildSchedule({ kind: 'daily', time: '09:00', timezone: 'Europe/Berlin' });
  if (!s.ok) throw new Error(s.message);
  return s.value;
})();

const digest = (channelId: string, by = 'U1'): NewDigest => ({
  platform: 'slack',
  channelId,
  entities: [{ kind: 'project', slug: 'bitcoin', name: 'Bitcoin', ticker: 'BTC' }],
  schedule,
  createdBy: by,
});

const NOW = Date.parse('2026-11-22T07:00:00Z');

describe('migrations on PostgreSQL', () => {
  it('are applied once when several replicas start at the same moment', async () => {
    const { url, drop } = await createPostgresDatabase();
    const replicas = await Promise.all(Array.from({ length: 6 }, () => openPostgres(url, 2)));
    try {
      const applied = await Promise.all(replicas.map((db) => migrate(db)));
      // Exactly one replica applied each migration; the others waited on the lock and found it done.
      expect(applied.flat().sort((a, b) => a - b)).toEqual(MIGRATIONS.map((m) => m.version));
      const versions = await replicas[0]!.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      expect(versions.map((v) => v.version)).toEqual(MIGRATIONS.map((m) => m.version));
      // And again later: nothing to do.
      expect(await migrate(replicas[1]!)).toEqual([]);
    } finally {
      await Promise.all(replicas.map((db) => db.close()));
      await drop();
    }
  });

  it('refuse a database migrated by a newer polbot', async () => {
    const { url, drop } = await createPostgresDatabase();
    const db = await openPostgres(url, 2);
    try {
      await migrate(db);
      await db.query(`INSERT INTO schema_migrations (version, name) VALUES (999, 'from the future')`);
      await expect(migrate(db)).rejects.toThrow(/schema version 999, newer than this polbot knows/);
    } finally {
      await db.close();
      await drop();
    }
  });
});

describe('PGlite persistence', () => {
  it('keeps digests under the data directory across restarts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'polbot-pglite-'));
    try {
      const first = await openPglite(dir);
      await migrate(first);
      const created = await new DigestStore(first).create(digest('C-PERSIST'), NOW, 10);
      await first.close();
      const second = await openPglite(dir);
      expect(await migrate(second)).toEqual([]);
      const found = await new DigestStore(second).get(created.ok ? created.digest.id : -1);
      await second.close();
      expect(found).toMatchObject({ channelId: 'C-PERSIST', timezone: 'Europe/Berlin', state: 'active' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe.each(ENGINES)('digest store on %s', (engine) => {
  let t: TestDatabase;
  let db: Db;
  let store: DigestStore;
  beforeAll(async () => {
    t = await testDatabase(engine);
    db = await t.connect();
    await migrate(db);
    store = new DigestStore(db);
  });
  afterAll(() => t.dispose());

  it('stores a digest with its entities, schedule, state, creator and first slot', async () => {
    const r = await store.create(digest('C-STORE', 'U42'), NOW, 10);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.digest).toMatchObject({
      platform: 'slack',
      channelId: 'C-STORE',
      entities: [{ kind: 'project', slug: 'bitcoin', name: 'Bitcoin', ticker: 'BTC' }],
      cron: '0 9 * * *',
      scheduleLabel: 'daily at 09:00',
      timezone: 'Europe/Berlin',
      state: 'active',
      stateReason: null,
      createdBy: 'U42',
      createdAt: NOW,
      lastDeliveredAt: null,
      lastSlot: null,
    });
    // 09:00 in Berlin on 2026-11-22 is 08:00 UTC (CET, UTC+1).
    expect(r.digest.nextSlot).toBe(Date.parse('2026-11-22T08:00:00Z'));
    expect(typeof r.digest.id).toBe('number');
    expect(await store.get(r.digest.id)).toEqual(r.digest);
  });

  it('lists, pauses, resumes and removes only within the digest’s own channel', async () => {
    const a = await store.create(digest('C-OWN'), NOW, 10);
    if (!a.ok) throw new Error('create failed');
    const id = a.digest.id;
    expect((await store.listChannel('slack', 'C-OWN')).map((d) => d.id)).toEqual([id]);
    expect(await store.listChannel('discord', 'C-OWN')).toEqual([]);
    expect(await store.pause(id, 'slack', 'C-OTHER', NOW)).toBeNull();
    expect(await store.remove(id, 'discord', 'C-OWN')).toBe(false);

    const paused = await store.pause(id, 'slack', 'C-OWN', NOW);
    expect(paused).toMatchObject({ state: 'paused', nextSlot: null });
    const later = Date.parse('2026-11-25T12:00:00Z');
    const resumed = await store.resume(id, 'slack', 'C-OWN', later);
    // Resume starts from the next slot after now: the paused days are not caught up.
    expect(resumed).toMatchObject({ state: 'active', nextSlot: Date.parse('2026-11-26T08:00:00Z') });
    expect(await store.remove(id, 'slack', 'C-OWN')).toBe(true);
    expect(await store.get(id)).toBeNull();
  });

  it('enforces the per-channel limit even when people add at the same moment', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => store.create(digest('C-RACE', `U${i}`), NOW, 3)));
    expect(results.filter((r) => r.ok)).toHaveLength(3);
    expect(results.filter((r) => !r.ok)).toEqual(Array.from({ length: 5 }, () => ({ ok: false, reason: 'channel_full', count: 3 })));
    expect(await store.listChannel('slack', 'C-RACE')).toHaveLength(3);
  });

  it('keeps one run per (digest, slot) whatever races write it', async () => {
    const r = await store.create(digest('C-UNIQUE'), NOW, 10);
    if (!r.ok) throw new Error('create failed');
    const slot = r.digest.nextSlot!;
    const reports = await Promise.all(Array.from({ length: 5 }, () => store.materialize(slot + 1000, 6 * 3_600_000)));
    // Other digests of this file are due too; every due digest got exactly one run, from one caller.
    const [{ n }] = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM digest_runs')) as [{ n: number }];
    expect(reports.reduce((sum, x) => sum + x.pending, 0)).toBe(n);
    const runs = await store.runs(r.digest.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ slot, status: 'pending', attempts: 0 });
    await expect(
      db.query(`INSERT INTO digest_runs (digest_id, slot, status, not_before, created_at) VALUES ($1, $2, 'pending', $2, $2)`, [
        r.digest.id,
        new Date(slot),
      ]),
    ).rejects.toThrow(/duplicate key|unique/i);
  });
});
