import type { EntityKind, EntityRef } from '../api/domain.js';
import { ms, msOrNull, type Db } from '../db/index.js';
import type { Platform } from '../workspace.js';

/**
 * Mutes: a channel asks for quiet on one name, one rule, or everything, until a time. A crossing
 * under a mute is recorded, not posted (its incident is held, `delivery_state = 'muted'`); once no
 * mute covers it and it still holds, it is delivered like any new incident, so the end of a mute is
 * one message through the same leased queue as every alert, exactly once across replicas.
 */

export type MuteTarget = { scope: 'entity'; entity: EntityRef } | { scope: 'rule'; ruleId: number } | { scope: 'channel' };

export interface Mute {
  id: number;
  platform: Platform;
  channelId: string;
  target: MuteTarget;
  until: number;
  setBy: string;
  setById: string | null;
  setAt: number;
  endedAt: number | null;
  endedBy: string | null;
  endedById: string | null;
}

/** The mute that held an incident back, as it was when the crossing came: what it covered, and who set it. */
export interface Held {
  muteId: number;
  scope: MuteTarget['scope'];
  name: string | null;
  ruleId: number | null;
  by: string;
  byId: string | null;
}

/** What a held incident's mute covered, in words. */
export function heldText(h: Held): string {
  return h.scope === 'entity' ? (h.name ?? 'this name') : h.scope === 'rule' ? `rule #${h.ruleId}` : 'this channel';
}

/** A mute lasts 5 minutes at least and 30 days at most: longer quiet is a pause, which is never forgotten. */
export const MIN_MUTE_SEC = 300;
export const MAX_MUTE_SEC = 30 * 86_400;
/** Active mutes a channel may hold at once. */
export const MAX_MUTES_PER_CHANNEL = 50;

type Row = Record<string, unknown>;

/** The target of a mute, in words: `Pepe (PEPE)`, `rule #3`, `all alerts in this channel`. */
export function targetText(t: MuteTarget): string {
  if (t.scope === 'entity') return `${t.entity.name}${t.entity.ticker ? ` (${t.entity.ticker})` : ''}`;
  return t.scope === 'rule' ? `rule #${t.ruleId}` : 'all alerts in this channel';
}

/**
 * SQL for the id of the mute covering an incident of rule `r` on (`kind`, `slug`) at the time in
 * parameter `now`, the one lasting longest first; null when none does. Shared by every statement
 * that decides whether a crossing is posted, so they agree on what a mute covers.
 */
export function coveringMute(kind: string, slug: string, now: string): string {
  return `(SELECT m.id FROM alert_mutes m
            WHERE m.platform = r.platform AND m.channel_id = r.channel_id AND m.ended_at IS NULL AND m.until > ${now}
              AND (m.scope = 'channel' OR (m.scope = 'rule' AND m.rule_id = r.id) OR (m.scope = 'entity' AND m.kind = ${kind} AND m.slug = ${slug}))
            ORDER BY m.until DESC, m.id LIMIT 1)`;
}

function toMute(r: Row): Mute {
  const scope = r.scope as MuteTarget['scope'];
  const target: MuteTarget =
    scope === 'entity'
      ? {
          scope,
          entity: {
            kind: r.kind as EntityKind,
            slug: String(r.slug),
            name: String(r.name ?? r.slug),
            ...(r.ticker ? { ticker: String(r.ticker) } : {}),
          },
        }
      : scope === 'rule'
        ? { scope, ruleId: Number(r.rule_id) }
        : { scope };
  return {
    id: Number(r.id),
    platform: r.platform as Platform,
    channelId: String(r.channel_id),
    target,
    until: ms(r.until),
    setBy: String(r.set_by),
    setById: (r.set_by_id as string | null) ?? null,
    setAt: ms(r.set_at),
    endedAt: msOrNull(r.ended_at),
    endedBy: (r.ended_by as string | null) ?? null,
    endedById: (r.ended_by_id as string | null) ?? null,
  };
}

/** The columns that say what a mute covers, and its values for a target. */
function targetWhere(t: MuteTarget, first: number): { sql: string; params: unknown[] } {
  if (t.scope === 'entity')
    return { sql: `scope = 'entity' AND kind = $${first} AND slug = $${first + 1}`, params: [t.entity.kind, t.entity.slug] };
  if (t.scope === 'rule') return { sql: `scope = 'rule' AND rule_id = $${first}`, params: [t.ruleId] };
  return { sql: `scope = 'channel'`, params: [] };
}

const at = (t: number) => new Date(t);

export class MuteStore {
  constructor(private readonly db: Db) {}

  /**
   * Mutes a target until a time. A mute of the same target still running is replaced (ended now,
   * by the same person), so a channel never holds two for one thing and the newest word counts.
   * Null when the channel holds as many mutes as it may.
   */
  async set(
    input: { platform: Platform; channelId: string; target: MuteTarget; until: number; by: string; byId: string | null },
    now: number,
  ): Promise<{ mute: Mute; replaced: Mute | null } | null> {
    return this.db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('polbot:mutes:' || $1 || ':' || $2))`, [input.platform, input.channelId]);
      const where = targetWhere(input.target, 4);
      const [replaced] = await tx.query<Row>(
        `UPDATE alert_mutes SET ended_at = $3, ended_by = $${4 + where.params.length}, ended_by_id = $${5 + where.params.length}
          WHERE platform = $1 AND channel_id = $2 AND ended_at IS NULL AND until > $3 AND ${where.sql} RETURNING *`,
        [input.platform, input.channelId, at(now), ...where.params, input.by, input.byId],
      );
      const [count] = await tx.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM alert_mutes WHERE platform = $1 AND channel_id = $2 AND ended_at IS NULL AND until > $3',
        [input.platform, input.channelId, at(now)],
      );
      if (Number(count?.n ?? 0) >= MAX_MUTES_PER_CHANNEL) return null;
      const t = input.target;
      const [row] = await tx.query<Row>(
        `INSERT INTO alert_mutes (platform, channel_id, scope, kind, slug, name, rule_id, until, set_by, set_by_id, set_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
        [
          input.platform,
          input.channelId,
          t.scope,
          t.scope === 'entity' ? t.entity.kind : null,
          t.scope === 'entity' ? t.entity.slug : null,
          t.scope === 'entity' ? `${t.entity.name}` : null,
          t.scope === 'rule' ? t.ruleId : null,
          at(input.until),
          input.by,
          input.byId,
          at(now),
        ],
      );
      return { mute: toMute(row!), replaced: replaced ? toMute(replaced) : null };
    });
  }

  /** Ends the running mutes of a target, or every one of the channel's (`all`); returns those ended. */
  async end(
    platform: Platform,
    channelId: string,
    target: MuteTarget | 'all',
    person: { by: string; byId: string | null },
    now: number,
  ): Promise<Mute[]> {
    const where = target === 'all' ? { sql: 'TRUE', params: [] } : targetWhere(target, 6);
    const rows = await this.db.query<Row>(
      `UPDATE alert_mutes SET ended_at = $3, ended_by = $4, ended_by_id = $5
        WHERE platform = $1 AND channel_id = $2 AND ended_at IS NULL AND until > $3 AND ${where.sql} RETURNING *`,
      [platform, channelId, at(now), person.by, person.byId, ...where.params],
    );
    return rows.map(toMute);
  }

  /** The channel's mutes running now, ending soonest first. */
  async active(platform: Platform, channelId: string, now: number): Promise<Mute[]> {
    const rows = await this.db.query<Row>(
      `SELECT * FROM alert_mutes WHERE platform = $1 AND channel_id = $2 AND ended_at IS NULL AND until > $3 ORDER BY until, id`,
      [platform, channelId, at(now)],
    );
    return rows.map(toMute);
  }

  /** The channel's mutes that ran at any time since `since`, oldest first: for catching up. */
  async since(platform: Platform, channelId: string, since: number): Promise<Mute[]> {
    const rows = await this.db.query<Row>(
      `SELECT * FROM alert_mutes WHERE platform = $1 AND channel_id = $2 AND COALESCE(ended_at, until) >= $3 ORDER BY set_at, id`,
      [platform, channelId, at(since)],
    );
    return rows.map(toMute);
  }
}
