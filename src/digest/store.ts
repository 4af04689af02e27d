import type { EntityRef } from '../api/domain.js';
import type { Reply } from '../reply/model.js';
import type { WatchlistChartSpec } from '../charts/types.js';
import { LeaseQueue, ms, msOrNull, type Db, type Queryable } from '../db/index.js';
import { nextSlot, slotsBetween, type Schedule } from './schedule.js';
import { scopeCondition } from '../db/scope.js';
import { UNINSTALLED_REASON, type InstallScope, type Platform } from '../workspace.js';

export type DigestState = 'active' | 'paused' | 'failing';
export type RunStatus = 'pending' | 'claimed' | 'delivered' | 'skipped' | 'failed';

export interface Digest {
  id: number;
  platform: Platform;
  channelId: string;
  /** The Slack workspace (and organisation) of the channel, whose token posts there; null elsewhere or with one token. */
  workspaceId: string | null;
  enterpriseId: string | null;
  /** Resolved when the digest was added; names as they were then. */
  entities: EntityRef[];
  cron: string;
  scheduleLabel: string;
  timezone: string;
  state: DigestState;
  /** Why it is failing (or paused), safe to show in the channel. */
  stateReason: string | null;
  createdBy: string;
  createdAt: number;
  /** The earliest slot not yet turned into a run; null while paused or failing. */
  nextSlot: number | null;
  lastSlot: number | null;
  lastDeliveredAt: number | null;
  /** The last attempt's transient failure, cleared by the next delivery. */
  lastError: string | null;
}

/** What one entity looked like in a delivered digest: the baseline of the next one. */
export interface EntitySnapshot {
  kind: EntityRef['kind'];
  slug: string;
  name: string;
  pol: number | null;
  rating: string | null;
  /** Red flags as shown ("Market maker: ..."); null when not applicable or not available. */
  flags: string[] | null;
  /** `unreadable`: the upstream answered with a PoL outside its domain (it is not stored as a number). */
  status: 'ok' | 'unavailable' | 'not_found' | 'unreadable';
}

export interface Snapshot {
  takenAt: number;
  entities: EntitySnapshot[];
}

/**
 * Everything a run posts, stored before the first message goes out, so an instance that takes over
 * a crashed run sends the remaining parts of the same digest, and the next digest compares with
 * exactly what this one showed. Images are not stored; the chart is drawn again from its spec.
 */
export interface RunContent {
  snapshot: Snapshot;
  parts: Reply[];
  chart: WatchlistChartSpec | null;
}

export interface Run {
  digestId: number;
  slot: number;
  status: RunStatus;
  notBefore: number;
  claimedBy: string | null;
  leaseUntil: number | null;
  attempts: number;
  partsTotal: number | null;
  partsSent: number;
  content: RunContent | null;
  reason: string | null;
  /** Slots this row stands for (a skipped row can cover older slots beyond the recording limit). */
  covers: number;
  createdAt: number;
  finishedAt: number | null;
}

export interface ClaimedRun {
  digest: Digest;
  run: Run;
  /** The run was claimed before by an instance whose lease ran out (it crashed or stalled). */
  recovered: boolean;
}

export interface NewDigest {
  platform: Platform;
  channelId: string;
  workspaceId?: string | null;
  enterpriseId?: string | null;
  entities: EntityRef[];
  schedule: Schedule;
  createdBy: string;
}

export type CreateResult = { ok: true; digest: Digest } | { ok: false; reason: 'channel_full'; count: number };

export const MISSED_REASON = 'not sent: polbot was not running at the scheduled time';
export const SUPERSEDED_REASON = 'not sent: a later slot was due at the same time';
export const LATE_REASON = 'not sent: more than the grace period late';
/** Reasons counted as "not sent" in the next digest; pauses are the channel's own choice and are not. */
const UNSENT_REASONS = [MISSED_REASON, SUPERSEDED_REASON, LATE_REASON];

type Row = Record<string, unknown>;

function toDigest(r: Row): Digest {
  return {
    id: Number(r.id),
    platform: r.platform as Platform,
    channelId: String(r.channel_id),
    workspaceId: (r.workspace_id as string | null) ?? null,
    enterpriseId: (r.enterprise_id as string | null) ?? null,
    entities: r.entities as EntityRef[],
    cron: String(r.cron),
    scheduleLabel: String(r.schedule_label),
    timezone: String(r.timezone),
    state: r.state as DigestState,
    stateReason: (r.state_reason as string | null) ?? null,
    createdBy: String(r.created_by),
    createdAt: ms(r.created_at),
    nextSlot: msOrNull(r.next_slot),
    lastSlot: msOrNull(r.last_slot),
    lastDeliveredAt: msOrNull(r.last_delivered_at),
    lastError: (r.last_error as string | null) ?? null,
  };
}

function toRun(r: Row): Run {
  return {
    digestId: Number(r.digest_id),
    slot: ms(r.slot),
    status: r.status as RunStatus,
    notBefore: ms(r.not_before),
    claimedBy: (r.claimed_by as string | null) ?? null,
    leaseUntil: msOrNull(r.lease_until),
    attempts: Number(r.attempts),
    partsTotal: r.parts_total === null || r.parts_total === undefined ? null : Number(r.parts_total),
    partsSent: Number(r.parts_sent),
    content: (r.content as RunContent | null) ?? null,
    reason: (r.reason as string | null) ?? null,
    covers: Number(r.covers),
    createdAt: ms(r.created_at),
    finishedAt: msOrNull(r.finished_at),
  };
}

const at = (t: number) => new Date(t);
const json = (v: unknown) => JSON.stringify(v);

/** Both engines accept these as array parameters; explicit casts keep the SQL unambiguous. */
const RUN_FIELDS =
  'digest_id, slot, status, not_before, claimed_by, lease_until, attempts, parts_total, parts_sent, content, reason, covers, created_at, finished_at';

export interface MaterializeReport {
  digests: number;
  pending: number;
  skipped: number;
}

/** Runs to deliver, claimed with leases: one run, one (digest, slot). */
const RUNS = new LeaseQueue({
  table: 'digest_runs',
  key: ['digest_id', 'slot'],
  state: 'status',
  holder: 'claimed_by',
  lease: 'lease_until',
  attempts: 'attempts',
  reason: 'reason',
});

export class DigestStore {
  constructor(readonly db: Db) {}

  // People's commands

  /**
   * Inserts a digest unless the channel is at its limit. The count and the insert share a
   * transaction holding a per-channel advisory lock, so two people adding at once cannot both
   * squeeze past the limit.
   */
  async create(input: NewDigest, now: number, maxPerChannel: number): Promise<CreateResult> {
    return this.db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('polbot:digest:channel:' || $1 || ':' || $2))`, [
        input.platform,
        input.channelId,
      ]);
      const [counted] = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM digests WHERE platform = $1 AND channel_id = $2', [
        input.platform,
        input.channelId,
      ]);
      const count = Number(counted?.n ?? 0);
      if (count >= maxPerChannel) return { ok: false, reason: 'channel_full', count } as const;
      const first = nextSlot(input.schedule.cron, input.schedule.timezone, now);
      const [row] = await tx.query<Row>(
        `INSERT INTO digests (platform, channel_id, entities, cron, schedule_label, timezone, state, created_by, created_at, next_slot, workspace_id, enterprise_id)
         VALUES ($1, $2, $3::jsonb, $4, $5, $6, 'active', $7, $8, $9, $10, $11) RETURNING *`,
        [
          input.platform,
          input.channelId,
          json(input.entities),
          input.schedule.cron,
          input.schedule.label,
          input.schedule.timezone,
          input.createdBy,
          at(now),
          first === null ? null : at(first),
          input.workspaceId ?? null,
          input.enterpriseId ?? null,
        ],
      );
      return { ok: true, digest: toDigest(row!) } as const;
    });
  }

  async get(id: number): Promise<Digest | null> {
    const [row] = await this.db.query<Row>('SELECT * FROM digests WHERE id = $1', [id]);
    return row ? toDigest(row) : null;
  }

  /** A digest only as seen from its own channel: ids from elsewhere are "not found". */
  async getInChannel(id: number, platform: Platform, channelId: string): Promise<Digest | null> {
    const [row] = await this.db.query<Row>('SELECT * FROM digests WHERE id = $1 AND platform = $2 AND channel_id = $3', [
      id,
      platform,
      channelId,
    ]);
    return row ? toDigest(row) : null;
  }

  async listChannel(platform: Platform, channelId: string): Promise<Digest[]> {
    const rows = await this.db.query<Row>('SELECT * FROM digests WHERE platform = $1 AND channel_id = $2 ORDER BY id', [
      platform,
      channelId,
    ]);
    return rows.map(toDigest);
  }

  /** The digests of several channels in one read, by channel then id (a person's Home tab). */
  async listChannels(platform: Platform, channelIds: readonly string[]): Promise<Digest[]> {
    if (!channelIds.length) return [];
    const rows = await this.db.query<Row>(
      'SELECT * FROM digests WHERE platform = $1 AND channel_id = ANY($2::text[]) ORDER BY channel_id, id',
      [platform, [...channelIds]],
    );
    return rows.map(toDigest);
  }

  async all(): Promise<Digest[]> {
    return (await this.db.query<Row>('SELECT * FROM digests ORDER BY id')).map(toDigest);
  }

  async remove(id: number, platform: Platform, channelId: string): Promise<boolean> {
    const rows = await this.db.query('DELETE FROM digests WHERE id = $1 AND platform = $2 AND channel_id = $3 RETURNING id', [
      id,
      platform,
      channelId,
    ]);
    return rows.length > 0;
  }

  /** Pausing stops new slots; a delivery already under way finishes. Waiting runs are dropped. */
  async pause(id: number, platform: Platform, channelId: string, now: number): Promise<Digest | null> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query<Row>(
        `UPDATE digests SET state = 'paused', state_reason = NULL, next_slot = NULL
         WHERE id = $1 AND platform = $2 AND channel_id = $3 RETURNING *`,
        [id, platform, channelId],
      );
      if (!row) return null;
      await tx.query(
        `UPDATE digest_runs SET status = 'skipped', reason = 'not sent: the digest was paused', finished_at = $2 WHERE digest_id = $1 AND status = 'pending'`,
        [id, at(now)],
      );
      return toDigest(row);
    });
  }

  /**
   * Resuming (from paused or failing) starts with the next slot after now: the time it was off is
   * not caught up, since nobody expects a pile of old digests after pressing resume.
   */
  async resume(id: number, platform: Platform, channelId: string, now: number): Promise<Digest | null> {
    const current = await this.getInChannel(id, platform, channelId);
    if (!current) return null;
    const next = nextSlot(current.cron, current.timezone, now);
    const [row] = await this.db.query<Row>(
      `UPDATE digests SET state = 'active', state_reason = NULL, last_error = NULL, next_slot = $4
       WHERE id = $1 AND platform = $2 AND channel_id = $3 RETURNING *`,
      [id, platform, channelId, next === null ? null : at(next)],
    );
    return row ? toDigest(row) : null;
  }

  /**
   * The Slack app was removed from a workspace: its running digests pause, with a reason a
   * reinstall recognises. Digests someone paused on purpose stay as they are.
   */
  async pauseWorkspace(platform: Platform, scope: InstallScope, now: number): Promise<Digest[]> {
    return this.db.transaction(async (tx) => {
      const where = scopeCondition(scope, 3);
      const rows = await tx.query<Row>(
        `UPDATE digests SET state = 'paused', state_reason = $1, next_slot = NULL
         WHERE platform = $2 AND ${where.sql} AND state IN ('active', 'failing') RETURNING *`,
        [UNINSTALLED_REASON, platform, ...where.params],
      );
      const ids = rows.map((r) => Number(r.id));
      if (ids.length)
        await tx.query(
          `UPDATE digest_runs SET status = 'skipped', reason = 'not sent: polbot was removed from the workspace', finished_at = $2 WHERE digest_id = ANY($1::int[]) AND status = 'pending'`,
          [ids, at(now)],
        );
      return rows.map(toDigest);
    });
  }

  /** The app is back in the workspace: the digests its removal paused run again from their next slot. */
  async resumeWorkspace(platform: Platform, scope: InstallScope, now: number): Promise<Digest[]> {
    const where = scopeCondition(scope, 3);
    const paused = (
      await this.db.query<Row>(`SELECT * FROM digests WHERE platform = $1 AND ${where.sql} AND state = 'paused' AND state_reason = $2`, [
        platform,
        UNINSTALLED_REASON,
        ...where.params,
      ])
    ).map(toDigest);
    const resumed: Digest[] = [];
    for (const d of paused) {
      const next = nextSlot(d.cron, d.timezone, now);
      const [row] = await this.db.query<Row>(
        `UPDATE digests SET state = 'active', state_reason = NULL, last_error = NULL, next_slot = $2 WHERE id = $1 AND state = 'paused' AND state_reason = $3 RETURNING *`,
        [d.id, next === null ? null : at(next), UNINSTALLED_REASON],
      );
      if (row) resumed.push(toDigest(row));
    }
    return resumed;
  }

  // The scheduler

  /**
   * Turns due slots into runs. A digest row is locked while its slots are written (SKIP LOCKED: a
   * replica busy with it is simply passed over), and the (digest, slot) primary key makes a slot's
   * run unique whatever races remain. Of the slots found, only the latest within the grace window
   * is to be delivered; older ones are recorded as skipped and mentioned in the next digest.
   */
  async materialize(
    now: number,
    graceMs: number,
    /** Only digests these platforms post; every platform's when not given. */
    platforms?: readonly Platform[],
    limit = 200,
  ): Promise<MaterializeReport> {
    if (platforms?.length === 0) return { digests: 0, pending: 0, skipped: 0 };
    return this.db.transaction(async (tx) => {
      // Only platforms this replica can deliver to: a platform switched off keeps its digests'
      // slots unwritten, and the catch-up rules apply when it comes back.
      const due = (
        await tx.query<Row>(
          `SELECT * FROM digests WHERE state = 'active' AND next_slot IS NOT NULL AND next_slot <= $1 AND ($3::text[] IS NULL OR platform = ANY($3::text[]))
           ORDER BY next_slot LIMIT $2 FOR UPDATE SKIP LOCKED`,
          [at(now), limit, platforms ? [...platforms] : null],
        )
      ).map(toDigest);
      const report: MaterializeReport = { digests: due.length, pending: 0, skipped: 0 };
      for (const d of due) {
        const { slots, dropped } = slotsBetween(d.cron, d.timezone, d.nextSlot! - 1, now);
        const latest = slots[slots.length - 1];
        const rows = slots.map((slot, i) => {
          const deliver = slot === latest && now - slot <= graceMs;
          return {
            slot,
            status: deliver ? 'pending' : 'skipped',
            reason: deliver ? null : now - slot > graceMs ? MISSED_REASON : SUPERSEDED_REASON,
            covers: i === 0 ? 1 + dropped : 1,
          };
        });
        if (rows.length > 0) {
          await tx.query(
            `INSERT INTO digest_runs (digest_id, slot, status, not_before, reason, covers, created_at, finished_at)
             SELECT $1, s.slot, s.status, s.slot, s.reason, s.covers, $6, CASE WHEN s.status = 'skipped' THEN $6::timestamptz END
             FROM unnest($2::timestamptz[], $3::text[], $4::text[], $5::int[]) AS s (slot, status, reason, covers)
             ON CONFLICT (digest_id, slot) DO NOTHING`,
            [d.id, rows.map((r) => at(r.slot)), rows.map((r) => r.status), rows.map((r) => r.reason), rows.map((r) => r.covers), at(now)],
          );
        }
        report.pending += rows.filter((r) => r.status === 'pending').length;
        report.skipped += rows.filter((r) => r.status === 'skipped').reduce((n, r) => n + r.covers, 0);
        const next = nextSlot(d.cron, d.timezone, now);
        await tx.query('UPDATE digests SET next_slot = $2 WHERE id = $1', [d.id, next === null ? null : at(next)]);
      }
      return report;
    });
  }

  /**
   * Claims runs to deliver: waiting runs whose time has come, and claimed runs whose lease ran out
   * (the instance holding them died). Run and digest rows are locked with SKIP LOCKED, so replicas
   * claiming at the same moment take disjoint sets; a run is claimed by setting `claimed_by` and a
   * lease, which every later write checks. One run per digest at a time keeps "since the previous
   * digest" meaningful.
   */
  async claim(opts: {
    now: number;
    instance: string;
    leaseMs: number;
    platforms: readonly Platform[];
    limit: number;
  }): Promise<ClaimedRun[]> {
    const { now, instance, leaseMs, platforms, limit } = opts;
    if (platforms.length === 0) return [];
    return this.db.transaction(async (tx) => {
      const candidates = await tx.query<Row>(
        `SELECT r.digest_id, r.slot, r.status, r.parts_sent FROM digest_runs r JOIN digests d ON d.id = r.digest_id
         WHERE d.state = 'active' AND d.platform = ANY($2::text[])
           AND ${RUNS.claimable('r', '$1', 'r.not_before <= $1')}
         ORDER BY r.slot, r.digest_id LIMIT $3
         FOR UPDATE OF r, d SKIP LOCKED`,
        [at(now), [...platforms], limit],
      );
      const claimed: ClaimedRun[] = [];
      const seen = new Set<number>();
      for (const c of candidates) {
        const digestId = Number(c.digest_id);
        if (seen.has(digestId)) continue;
        // A waiting run with a newer run behind it would only repeat what the newer one says.
        if (c.status === 'pending' && Number(c.parts_sent) === 0) {
          const newer = await tx.query(
            `SELECT 1 FROM digest_runs WHERE digest_id = $1 AND slot > $2 AND status IN ('pending', 'claimed', 'delivered') LIMIT 1`,
            [digestId, c.slot],
          );
          if (newer.length > 0) {
            await tx.query(`UPDATE digest_runs SET status = 'skipped', reason = $3, finished_at = $4 WHERE digest_id = $1 AND slot = $2`, [
              digestId,
              c.slot,
              SUPERSEDED_REASON,
              at(now),
            ]);
            continue;
          }
        }
        // Committed claims of other transactions are visible here: we hold the digest's row lock.
        const busy = await tx.query(
          `SELECT 1 FROM digest_runs WHERE digest_id = $1 AND slot <> $2 AND status = 'claimed' AND lease_until > $3 LIMIT 1`,
          [digestId, c.slot, at(now)],
        );
        if (busy.length > 0) continue;
        const row = await RUNS.take(tx, [digestId, c.slot], instance, now + leaseMs, RUN_FIELDS);
        const [digest] = await tx.query<Row>('SELECT * FROM digests WHERE id = $1', [digestId]);
        if (!row || !digest) continue;
        seen.add(digestId);
        claimed.push({ digest: toDigest(digest), run: toRun(row), recovered: c.status === 'claimed' });
      }
      return claimed;
    });
  }

  /**
   * Every write by a run's holder goes through the queue's fence: it only matches while the run is
   * still claimed by `instance`. After a takeover the old holder's writes match nothing.
   */
  private fenced(q: Queryable, digestId: number, slot: number, instance: string, set: string, params: unknown[]): Promise<boolean> {
    return RUNS.fenced(q, [digestId, at(slot)], instance, set, params);
  }

  renew(digestId: number, slot: number, instance: string, leaseUntil: number): Promise<boolean> {
    return RUNS.renew(this.db, [digestId, at(slot)], instance, leaseUntil);
  }

  saveContent(digestId: number, slot: number, instance: string, content: RunContent, leaseUntil: number): Promise<boolean> {
    return this.fenced(this.db, digestId, slot, instance, 'content = $4::jsonb, parts_total = $5, parts_sent = 0, lease_until = $6', [
      json(content),
      content.parts.length,
      at(leaseUntil),
    ]);
  }

  partSent(digestId: number, slot: number, instance: string, sent: number): Promise<boolean> {
    return this.fenced(this.db, digestId, slot, instance, 'parts_sent = GREATEST(parts_sent, $4)', [sent]);
  }

  async delivered(digestId: number, slot: number, instance: string, now: number): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const ok = await this.fenced(
        tx,
        digestId,
        slot,
        instance,
        `status = 'delivered', lease_until = NULL, reason = NULL, finished_at = $4`,
        [at(now)],
      );
      if (ok) {
        await tx.query(`UPDATE digests SET last_slot = GREATEST(last_slot, $2), last_delivered_at = $3, last_error = NULL WHERE id = $1`, [
          digestId,
          at(slot),
          at(now),
        ]);
      }
      return ok;
    });
  }

  skip(digestId: number, slot: number, instance: string, now: number, reason: string): Promise<boolean> {
    return RUNS.giveUp(this.db, [digestId, at(slot)], instance, reason, { finished_at: at(now) }, 'skipped');
  }

  /** Gives a run back after a transient failure; it is tried again from `notBefore`. */
  release(digestId: number, slot: number, instance: string, notBefore: number, reason: string): Promise<boolean> {
    return RUNS.release(this.db, [digestId, at(slot)], instance, reason, { not_before: at(notBefore) });
  }

  /**
   * A run that will not be delivered. `channel`: the channel itself refuses us (gone, bot removed,
   * no permission), so the digest is marked failing and stops until someone resumes it.
   */
  async failed(digestId: number, slot: number, instance: string, now: number, reason: string, channel: boolean): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const ok = await RUNS.giveUp(tx, [digestId, at(slot)], instance, reason, { finished_at: at(now) });
      if (!ok) return false;
      if (channel) {
        await tx.query(`UPDATE digests SET state = 'failing', state_reason = $2, next_slot = NULL WHERE id = $1`, [digestId, reason]);
        await tx.query(
          `UPDATE digest_runs SET status = 'skipped', reason = 'not sent: the digest is failing', finished_at = $2 WHERE digest_id = $1 AND status = 'pending'`,
          [digestId, at(now)],
        );
      } else {
        await tx.query('UPDATE digests SET last_error = $2 WHERE id = $1', [digestId, reason]);
      }
      return true;
    });
  }

  /** The snapshot the channel last saw: the baseline for "since the previous digest". */
  async previousDelivered(digestId: number, beforeSlot: number): Promise<{ slot: number; snapshot: Snapshot } | null> {
    const [row] = await this.db.query<Row>(
      `SELECT slot, content -> 'snapshot' AS snapshot FROM digest_runs
       WHERE digest_id = $1 AND slot < $2 AND status = 'delivered' AND content IS NOT NULL
       ORDER BY slot DESC LIMIT 1`,
      [digestId, at(beforeSlot)],
    );
    return row ? { slot: ms(row.slot), snapshot: row.snapshot as Snapshot } : null;
  }

  /** Slots not delivered between two slots (exclusive), e.g. while polbot was down. */
  async skippedBetween(digestId: number, afterSlot: number | null, beforeSlot: number): Promise<number> {
    const [row] = await this.db.query<{ n: number }>(
      `SELECT coalesce(sum(covers), 0)::int AS n FROM digest_runs
       WHERE digest_id = $1 AND (status = 'failed' OR reason = ANY($4::text[])) AND slot < $2 AND ($3::timestamptz IS NULL OR slot > $3)`,
      [digestId, at(beforeSlot), afterSlot === null ? null : at(afterSlot), UNSENT_REASONS],
    );
    return Number(row?.n ?? 0);
  }

  /**
   * Deletes finished runs (with their stored content) that ended before `before`, except each
   * digest's latest delivered run, which the next digest compares with. Nothing later than that run
   * is touched either, so "not sent since the previous digest" keeps counting what it should, and
   * slots are only ever materialized forwards, so a deleted slot never comes back.
   */
  async prune(before: number): Promise<number> {
    const rows = await this.db.query<{ n: number }>(
      `WITH gone AS (
         DELETE FROM digest_runs r
         WHERE r.status IN ('delivered', 'skipped', 'failed') AND r.finished_at < $1
           AND r.slot < (SELECT max(l.slot) FROM digest_runs l WHERE l.digest_id = r.digest_id AND l.status = 'delivered')
         RETURNING 1
       )
       SELECT count(*)::int AS n FROM gone`,
      [at(before)],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async runs(digestId: number): Promise<Run[]> {
    return (await this.db.query<Row>(`SELECT ${RUN_FIELDS} FROM digest_runs WHERE digest_id = $1 ORDER BY slot`, [digestId])).map(toRun);
  }

  async run(digestId: number, slot: number): Promise<Run | null> {
    const [row] = await this.db.query<Row>(`SELECT ${RUN_FIELDS} FROM digest_runs WHERE digest_id = $1 AND slot = $2`, [
      digestId,
      at(slot),
    ]);
    return row ? toRun(row) : null;
  }
}
