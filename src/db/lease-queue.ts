import type { Queryable } from './connection.js';

/** Where a queue keeps its claims: a table's key, and the columns of its state, holder, lease, tries and reason. */
export interface LeaseColumns {
  table: string;
  /** The columns that name one item, in the order keys are given (`['digest_id', 'slot']`). */
  key: readonly string[];
  /** The item's state: `pending` waits, `claimed` is held; what else it may be is the table's. */
  state: string;
  /** Which replica holds the claim. */
  holder: string;
  /** Until when the claim holds without renewal. */
  lease: string;
  /** Claims so far, the current one included. */
  attempts: string;
  /** Why it was given back, or given up. */
  reason: string;
}

type Row = Record<string, unknown>;

/**
 * The leased queue that every piece of work polbot does unasked stands on (a digest run, an alert
 * message, a follow-up in its thread), so that any number of replicas do each item once:
 *
 * - claim: a waiting item, or a claimed one whose lease ran out (its holder died), is taken with a
 *   lease under `FOR UPDATE SKIP LOCKED`, so replicas claiming at once take disjoint items;
 * - renew: the holder extends its lease while slow work (a post under Retry-After) goes on;
 * - fence: every write by a holder matches only while it still holds the claim, so after a takeover
 *   the old holder's writes change nothing and it learns it lost;
 * - release and give up: the holder hands an item back to be tried later, or ends it with a reason.
 *
 * Which items are due, and in what order, is each store's own query; `claimable` gives the part
 * every queue shares. The protocols built on it are described in docs/architecture.md.
 */
export class LeaseQueue {
  constructor(readonly columns: LeaseColumns) {}

  /** A queue that is a table of its own, keyed by `id`, with the usual columns: state, claimed_by, lease_until, attempts, reason. */
  static ofTable(table: string): LeaseQueue {
    return new LeaseQueue({
      table,
      key: ['id'],
      state: 'state',
      holder: 'claimed_by',
      lease: 'lease_until',
      attempts: 'attempts',
      reason: 'reason',
    });
  }

  /**
   * SQL true for rows a replica may claim at `now` (a parameter such as `$1`): waiting ones that
   * also meet `waiting` (their time has come; it is bracketed, so it may use OR), and claimed ones
   * whose lease ran out.
   */
  claimable(alias: string, now: string, waiting?: string): string {
    const c = this.columns;
    const col = (name: string) => `${alias}.${name}`;
    const pending = `${col(c.state)} = 'pending'${waiting ? ` AND (${waiting})` : ''}`;
    return `((${pending}) OR (${col(c.state)} = 'claimed' AND ${col(c.lease)} <= ${now}))`;
  }

  /** Claims one item found claimable (its row locked by the caller's transaction); returns the row as `returning` lists it. */
  async take(tx: Queryable, key: readonly unknown[], instance: string, leaseUntil: number, returning = '*'): Promise<Row | null> {
    const c = this.columns;
    const n = key.length;
    const [row] = await tx.query<Row>(
      `UPDATE ${c.table} SET ${c.state} = 'claimed', ${c.holder} = $${n + 1}, ${c.lease} = $${n + 2}, ${c.attempts} = ${c.attempts} + 1
       WHERE ${this.where(key)} RETURNING ${returning}`,
      [...key, instance, new Date(leaseUntil)],
    );
    return row ?? null;
  }

  /**
   * A write by the holder: `set` applies only while `instance` still holds the item. Its parameters
   * are numbered after the key's and the instance's (`$3` onwards for a one-column key).
   */
  async fenced(q: Queryable, key: readonly unknown[], instance: string, set: string, params: readonly unknown[] = []): Promise<boolean> {
    const c = this.columns;
    const rows = await q.query(
      `UPDATE ${c.table} SET ${set} WHERE ${this.where(key)} AND ${c.holder} = $${key.length + 1} AND ${c.state} = 'claimed' RETURNING 1`,
      [...key, instance, ...params],
    );
    return rows.length > 0;
  }

  renew(q: Queryable, key: readonly unknown[], instance: string, leaseUntil: number): Promise<boolean> {
    return this.fenced(q, key, instance, `${this.columns.lease} = $${key.length + 2}`, [new Date(leaseUntil)]);
  }

  /**
   * Ends the item with `state` (failed by default) and why, and any other columns in `also`; the
   * lease goes, since nobody is to take it over.
   */
  giveUp(
    q: Queryable,
    key: readonly unknown[],
    instance: string,
    reason: string,
    also: Readonly<Record<string, unknown>> = {},
    state = 'failed',
  ): Promise<boolean> {
    return this.settle(q, key, instance, {
      [this.columns.state]: state,
      [this.columns.lease]: null,
      [this.columns.reason]: reason,
      ...also,
    });
  }

  /** Ends the item as done (`state`, `done` by default), with any other columns in `also`; the lease goes. */
  finish(
    q: Queryable,
    key: readonly unknown[],
    instance: string,
    also: Readonly<Record<string, unknown>> = {},
    state = 'done',
  ): Promise<boolean> {
    return this.settle(q, key, instance, { [this.columns.state]: state, [this.columns.lease]: null, ...also });
  }

  /** Hands the item back to wait again, saying why; `also` sets its other columns (when it may be tried again). */
  release(
    q: Queryable,
    key: readonly unknown[],
    instance: string,
    reason: string,
    also: Readonly<Record<string, unknown>> = {},
  ): Promise<boolean> {
    const c = this.columns;
    return this.settle(q, key, instance, { [c.state]: 'pending', [c.holder]: null, [c.lease]: null, [c.reason]: reason, ...also });
  }

  /**
   * Locks the items of `keys` (one-column keys) that `instance` still holds, for a step that needs
   * all of them at once (one message carrying several incidents); returns how many it holds.
   */
  async lockHeld(tx: Queryable, keys: readonly unknown[], instance: string, keyType = 'int'): Promise<number> {
    const c = this.columns;
    const rows = await tx.query(
      `SELECT ${c.key[0]} FROM ${c.table} WHERE ${c.key[0]} = ANY($1::${keyType}[]) AND ${c.holder} = $2 AND ${c.state} = 'claimed' FOR UPDATE`,
      [keys, instance],
    );
    return rows.length;
  }

  /** A fenced write of whole values, one parameter each; `null` clears a column. */
  private settle(q: Queryable, key: readonly unknown[], instance: string, values: Readonly<Record<string, unknown>>): Promise<boolean> {
    const entries = Object.entries(values);
    const first = key.length + 2;
    const set = entries.map(([column], i) => `${column} = $${first + i}`).join(', ');
    return this.fenced(
      q,
      key,
      instance,
      set,
      entries.map(([, v]) => v),
    );
  }

  private where(key: readonly unknown[]): string {
    const { key: columns } = this.columns;
    if (key.length !== columns.length) throw new Error(`${this.columns.table}: a key has ${columns.length} parts, not ${key.length}`);
    return columns.map((column, i) => `${column} = $${i + 1}`).join(' AND ');
  }
}
