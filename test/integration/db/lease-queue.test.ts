import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Db, Queryable } from '../../../src/db/connection.js';
import { LeaseQueue } from '../../../src/db/lease-queue.js';
import { ENGINES, MINUTE, testDatabase, type TestDatabase } from '../../helpers/digest/helpers.js';

/**
 * The leased queue on its own, over a table of its own: claims under SKIP LOCKED, leases that run
 * out, fenced writes after a takeover, release and give up. Every time is a value the test names.
 */

const QUEUE = new LeaseQueue({
  table: 'work',
  key: ['id'],
  state: 'state',
  holder: 'holder',
  lease: 'lease_until',
  attempts: 'attempts',
  reason: 'reason',
});

const T0 = Date.parse('2026-11-22T07:00:00Z');
const LEASE = 5 * MINUTE;

interface WorkRow {
  id: number;
  state: string;
  holder: string | null;
  lease_until: Date | null;
  attempts: number;
  reason: string | null;
  not_before: Date | null;
}

function later(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe.each(ENGINES)('the leased queue on %s', (engine) => {
  let database: TestDatabase;
  /** Two replicas: on PostgreSQL two connection pools, on PGlite the one in-process database. */
  let a: Db;
  let b: Db;

  beforeAll(async () => {
    database = await testDatabase(engine);
    a = await database.connect();
    b = await database.connect();
  });
  afterAll(async () => {
    await database.dispose();
  });

  async function fresh(items: number): Promise<void> {
    await a.query('DROP TABLE IF EXISTS work');
    await a.query(`CREATE TABLE work (
      id int PRIMARY KEY,
      state text NOT NULL DEFAULT 'pending',
      holder text,
      lease_until timestamptz,
      attempts int NOT NULL DEFAULT 0,
      reason text,
      not_before timestamptz
    )`);
    await a.query('INSERT INTO work (id) SELECT generate_series(1, $1::int)', [items]);
  }

  beforeEach(() => fresh(5));

  /**
   * What a store's claim does: the claimable rows, locked with SKIP LOCKED, then taken one by one;
   * `afterSelect` runs while the rows are locked and not yet taken.
   */
  function claim(
    db: Db,
    instance: string,
    now: number,
    limit: number,
    afterSelect: () => Promise<void> = async () => undefined,
  ): Promise<number[]> {
    return db.transaction(async (tx) => {
      const rows = await tx.query<{ id: number }>(
        `SELECT w.id FROM work w WHERE ${QUEUE.claimable('w', '$1', '(w.not_before IS NULL OR w.not_before <= $1)')}
          ORDER BY w.id LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [new Date(now), limit],
      );
      await afterSelect();
      const taken: number[] = [];
      for (const r of rows) {
        const row = await QUEUE.take(tx, [r.id], instance, now + LEASE, 'id');
        taken.push(Number(row?.id));
      }
      return taken;
    });
  }

  async function row(id: number): Promise<WorkRow> {
    const [r] = await a.query<WorkRow>('SELECT * FROM work WHERE id = $1', [id]);
    if (!r) throw new Error(`no row ${id}`);
    return r;
  }

  async function rows(): Promise<WorkRow[]> {
    return a.query<WorkRow>('SELECT * FROM work ORDER BY id');
  }

  const lockHeld = (db: Db, keys: number[], instance: string) => db.transaction((tx: Queryable) => QUEUE.lockHeld(tx, keys, instance));

  it('gives two replicas claiming in concurrent transactions disjoint items, and every item once', async () => {
    let claims: [number[], number[]];
    if (engine === 'postgres') {
      // A holds its rows locked, not yet taken, while B looks: B skips them instead of waiting.
      const aLocked = later();
      const bLooked = later();
      const first = claim(a, 'A', T0, 2, async () => {
        aLocked.resolve();
        let guard: NodeJS.Timeout | undefined;
        const blocked = new Promise<never>((_, reject) => {
          guard = setTimeout(() => reject(new Error("B waited for A's locked rows instead of skipping them")), 5_000);
        });
        await Promise.race([bLooked.promise, blocked]).finally(() => clearTimeout(guard));
      });
      await aLocked.promise;
      const second = claim(b, 'B', T0, 2, async () => bLooked.resolve());
      claims = await Promise.all([first, second]);
    } else {
      // PGlite is one connection: its transactions take turns, so B sees A's claims committed.
      claims = await Promise.all([claim(a, 'A', T0, 2), claim(b, 'B', T0, 2)]);
    }
    expect(claims).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(await claim(b, 'B', T0, 2)).toEqual([5]);
    expect(await claim(a, 'A', T0, 2)).toEqual([]);
    expect((await rows()).map((r) => [r.id, r.state, r.holder, r.lease_until?.getTime(), r.attempts])).toEqual([
      [1, 'claimed', 'A', T0 + LEASE, 1],
      [2, 'claimed', 'A', T0 + LEASE, 1],
      [3, 'claimed', 'B', T0 + LEASE, 1],
      [4, 'claimed', 'B', T0 + LEASE, 1],
      [5, 'claimed', 'B', T0 + LEASE, 1],
    ]);
  });

  it('hands out each of many items once to four replicas claiming in a loop at the same moment', async () => {
    await fresh(40);
    const replicas = engine === 'postgres' ? [a, b, await database.connect(), await database.connect()] : [a, a, a, a];
    const taken = await Promise.all(
      replicas.map(async (db, i) => {
        const mine: number[] = [];
        for (;;) {
          const got = await claim(db, `R${i}`, T0, 3);
          if (!got.length) return mine;
          mine.push(...got);
        }
      }),
    );
    expect(taken.flat().sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    const all = await rows();
    expect(all.every((r) => r.state === 'claimed' && r.attempts === 1)).toBe(true);
    // Each row names the replica that claimed it, and no other.
    expect(all.map((r) => r.holder)).toEqual(all.map((r) => `R${taken.findIndex((ids) => ids.includes(r.id))}`));
  });

  it('keeps a claimed item from others until its lease ends, then lets one take it over', async () => {
    expect(await claim(a, 'A', T0, 1)).toEqual([1]);
    expect(await claim(b, 'B', T0 + LEASE - 1, 5)).toEqual([2, 3, 4, 5]);
    expect(await claim(b, 'B', T0 + LEASE - 1, 5)).toEqual([]);
    // 2 to 5 are B's until T0 + 2 * LEASE - 1; 1 is free to take at the very end of A's lease.
    expect(await claim(b, 'B', T0 + LEASE, 5)).toEqual([1]);
    expect(await row(1)).toEqual({
      id: 1,
      state: 'claimed',
      holder: 'B',
      lease_until: new Date(T0 + 2 * LEASE),
      attempts: 2,
      reason: null,
      not_before: null,
    });
  });

  it("after a takeover turns the old holder's fenced write, renew, release and give up into no-ops that say so", async () => {
    await claim(a, 'A', T0, 1);
    expect(await claim(b, 'B', T0 + LEASE, 1)).toEqual([1]);
    const taken = await row(1);
    expect(taken).toMatchObject({ state: 'claimed', holder: 'B', lease_until: new Date(T0 + 2 * LEASE), attempts: 2 });

    expect(await QUEUE.fenced(a, [1], 'A', 'reason = $3', ['late write'])).toBe(false);
    expect(await QUEUE.renew(a, [1], 'A', T0 + 10 * LEASE)).toBe(false);
    expect(await QUEUE.release(a, [1], 'A', 'given back late', { not_before: new Date(T0) })).toBe(false);
    expect(await QUEUE.giveUp(a, [1], 'A', 'given up late')).toBe(false);
    expect(await row(1)).toEqual(taken);

    // The new holder's own writes still land.
    expect(await QUEUE.renew(b, [1], 'B', T0 + 3 * LEASE)).toBe(true);
    expect(await QUEUE.fenced(b, [1], 'B', 'reason = $3', ['noted'])).toBe(true);
    expect(await row(1)).toMatchObject({ holder: 'B', lease_until: new Date(T0 + 3 * LEASE), reason: 'noted' });
  });

  it('release puts the item back to wait with its reason, without holder or lease, until its time comes', async () => {
    await claim(a, 'A', T0, 1);
    const retryAt = T0 + 10 * MINUTE;
    expect(await QUEUE.release(a, [1], 'A', 'upstream answered 503', { not_before: new Date(retryAt) })).toBe(true);
    expect(await row(1)).toEqual({
      id: 1,
      state: 'pending',
      holder: null,
      lease_until: null,
      attempts: 1,
      reason: 'upstream answered 503',
      not_before: new Date(retryAt),
    });
    // Released, it is no longer A's: a second release and a fenced write match nothing.
    expect(await QUEUE.release(a, [1], 'A', 'again')).toBe(false);
    expect(await QUEUE.fenced(a, [1], 'A', 'reason = $3', ['late'])).toBe(false);
    expect(await claim(b, 'B', retryAt - 1, 5)).toEqual([2, 3, 4, 5]);
    expect(await claim(b, 'B', retryAt, 5)).toEqual([1]);
    expect(await row(1)).toMatchObject({ state: 'claimed', holder: 'B', attempts: 2, reason: 'upstream answered 503' });
  });

  it('give up records the state and reason and clears the lease; the item is never claimed again', async () => {
    await claim(a, 'A', T0, 2);
    expect(await QUEUE.giveUp(a, [1], 'A', 'the channel is gone')).toBe(true);
    expect(await QUEUE.giveUp(a, [2], 'A', 'not sent: superseded', { not_before: new Date(T0 + MINUTE) }, 'skipped')).toBe(true);
    expect(await row(1)).toEqual({
      id: 1,
      state: 'failed',
      holder: 'A',
      lease_until: null,
      attempts: 1,
      reason: 'the channel is gone',
      not_before: null,
    });
    expect(await row(2)).toEqual({
      id: 2,
      state: 'skipped',
      holder: 'A',
      lease_until: null,
      attempts: 1,
      reason: 'not sent: superseded',
      not_before: new Date(T0 + MINUTE),
    });
    // Ended, it is nobody's to write or to take, however late.
    expect(await QUEUE.fenced(a, [1], 'A', 'reason = $3', ['late'])).toBe(false);
    expect(await QUEUE.renew(a, [2], 'A', T0 + LEASE)).toBe(false);
    expect(await claim(b, 'B', T0 + 100 * LEASE, 5)).toEqual([3, 4, 5]);
  });

  it('counts every take in attempts', async () => {
    expect(await claim(a, 'A', T0, 1)).toEqual([1]);
    expect(await claim(b, 'B', T0 + LEASE, 1)).toEqual([1]);
    expect(await QUEUE.release(b, [1], 'B', 'try later')).toBe(true);
    expect(await claim(a, 'A', T0 + LEASE, 1)).toEqual([1]);
    expect(await row(1)).toMatchObject({ holder: 'A', attempts: 3 });
    expect((await rows()).map((r) => r.attempts)).toEqual([3, 0, 0, 0, 0]);
  });

  it('lockHeld counts only the items the instance still holds', async () => {
    expect(await claim(a, 'A', T0, 3)).toEqual([1, 2, 3]);
    expect(await lockHeld(a, [1, 2, 3], 'A')).toBe(3);
    // A renews 1 and 3 but not 2, so at the end of the first lease B takes 2 over; then A gives 3 back.
    expect(await QUEUE.renew(a, [1], 'A', T0 + 2 * LEASE)).toBe(true);
    expect(await QUEUE.renew(a, [3], 'A', T0 + 2 * LEASE)).toBe(true);
    expect(await claim(b, 'B', T0 + LEASE, 5)).toEqual([2, 4, 5]);
    expect(await QUEUE.release(a, [3], 'A', 'not needed')).toBe(true);
    expect(await lockHeld(a, [1, 2, 3], 'A')).toBe(1);
    expect(await lockHeld(b, [1, 2, 3], 'B')).toBe(1);
    expect(await lockHeld(a, [4, 5], 'A')).toBe(0);
    expect(await QUEUE.giveUp(a, [1], 'A', 'done with it')).toBe(true);
    expect(await lockHeld(a, [1, 2, 3], 'A')).toBe(0);
  });

  it('applies a waiting condition written with OR to waiting items only, never to a claim whose lease holds', async () => {
    await claim(a, 'A', T0, 1);
    expect(await QUEUE.release(a, [1], 'A', 'retry', { not_before: new Date(T0) })).toBe(true);
    expect(await claim(a, 'A', T0, 1)).toEqual([1]);
    // Item 1 is claimed with a live lease and a not_before in the past.
    const claimable = await a.query<{ id: number }>(
      `SELECT w.id FROM work w WHERE ${QUEUE.claimable('w', '$1', 'w.not_before IS NULL OR w.not_before <= $1')} ORDER BY w.id`,
      [new Date(T0 + MINUTE)],
    );
    expect(claimable.map((r) => r.id)).toEqual([2, 3, 4, 5]);
  });

  it('refuses a key of the wrong length rather than matching the wrong rows', async () => {
    await expect(QUEUE.renew(a, [1, 2], 'A', T0)).rejects.toThrow('work: a key has 1 parts, not 2');
  });
});
