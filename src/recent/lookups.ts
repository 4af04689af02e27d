import type { EntityKind, EntityRef } from '../api/domain.js';
import { ms, type Db } from '../db/connection.js';
import type { Platform } from '../workspace.js';

/**
 * The projects and exchanges a person looked up, newest first, per workspace (a Slack team, a
 * Discord server). Stored with the digests, so every replica sees the same list; each person keeps
 * at most `keep` rows, pruned as a new one arrives, so the table cannot grow with use.
 */

export interface LookupOwner {
  platform: Platform;
  workspaceId: string;
  userId: string;
}

export interface RecentLookup extends Pick<EntityRef, 'kind' | 'slug' | 'name'> {
  lookedUpAt: number;
}

/** More than any surface shows, so a person's list is still full after a few are gone upstream. */
const KEEP = 20;

export class RecentLookups {
  constructor(
    private readonly db: Pick<Db, 'query' | 'transaction'>,
    private readonly keep = KEEP,
  ) {}

  async record(owner: LookupOwner, entity: Pick<EntityRef, 'kind' | 'slug' | 'name'>, now: number): Promise<void> {
    const key = [owner.platform, owner.workspaceId, owner.userId];
    await this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO recent_lookups (platform, workspace_id, user_id, kind, slug, name, looked_up_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (platform, workspace_id, user_id, kind, slug) DO UPDATE SET name = EXCLUDED.name, looked_up_at = EXCLUDED.looked_up_at`,
        [...key, entity.kind, entity.slug, entity.name, new Date(now)],
      );
      await tx.query(
        `DELETE FROM recent_lookups r WHERE r.platform = $1 AND r.workspace_id = $2 AND r.user_id = $3
           AND (r.kind, r.slug) NOT IN (
             SELECT k.kind, k.slug FROM recent_lookups k WHERE k.platform = $1 AND k.workspace_id = $2 AND k.user_id = $3
             ORDER BY k.looked_up_at DESC, k.kind, k.slug LIMIT $4)`,
        [...key, this.keep],
      );
    });
  }

  /** The names most people of a workspace have among their recent lookups, most first. */
  async mostAsked(platform: Platform, workspaceId: string, limit: number): Promise<string[]> {
    const rows = await this.db.query<{ name: string }>(
      `SELECT max(name) AS name FROM recent_lookups WHERE platform = $1 AND workspace_id = $2
        GROUP BY kind, slug ORDER BY count(*) DESC, max(looked_up_at) DESC LIMIT $3`,
      [platform, workspaceId, limit],
    );
    return rows.map((r) => r.name);
  }

  async list(owner: LookupOwner, limit: number): Promise<RecentLookup[]> {
    const rows = await this.db.query<{ kind: string; slug: string; name: string; looked_up_at: unknown }>(
      `SELECT kind, slug, name, looked_up_at FROM recent_lookups WHERE platform = $1 AND workspace_id = $2 AND user_id = $3
       ORDER BY looked_up_at DESC, kind, slug LIMIT $4`,
      [owner.platform, owner.workspaceId, owner.userId, Math.min(limit, this.keep)],
    );
    return rows.map((r) => ({ kind: r.kind as EntityKind, slug: r.slug, name: r.name, lookedUpAt: ms(r.looked_up_at) }));
  }
}
