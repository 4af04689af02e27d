import type { Installation, InstallationQuery, InstallationStore } from '@slack/oauth';
import type { Queryable } from '../../../src/db/connection.js';
import { SealError, type Sealer } from '../../../src/secrets/seal.js';

/** Where a Slack request or a scheduled post comes from: its workspace, and its Enterprise Grid organisation if any. */
export interface WorkspaceRef {
  teamId: string | null;
  enterpriseId: string | null;
}

/** The key of an installation: an organisation-wide install answers for every workspace of the organisation. */
function installationKey(q: {
  isEnterpriseInstall?: boolean;
  enterpriseId?: string | undefined;
  teamId?: string | undefined;
}): string | null {
  if (q.isEnterpriseInstall && q.enterpriseId) return `E:${q.enterpriseId}`;
  return q.teamId ? `T:${q.teamId}` : null;
}

const KEY_CHECK_TEXT = 'polbot sealing key check';

/**
 * Slack installations in the digests' database (PGlite or PostgreSQL), one row per workspace or
 * organisation, the installation itself sealed (tokens included) with POLBOT_ENCRYPTION_KEY.
 * What Bolt's InstallProvider stores on install and reads on every request (`authorize`).
 */
export class SealedInstallationStore implements InstallationStore {
  constructor(
    private readonly db: Queryable,
    private readonly sealer: Sealer,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * Seals a known text with the key on first use, and opens it on every later start: a replica
   * started with a different key stops with one clear line instead of failing at each request.
   */
  async checkKey(): Promise<void> {
    const [row] = await this.db.query<{ sealed: string }>('SELECT sealed FROM sealing_key_check WHERE id = 1');
    if (!row) {
      await this.db.query('INSERT INTO sealing_key_check (id, sealed) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [
        this.sealer.seal(KEY_CHECK_TEXT, 'key-check'),
      ]);
      return this.checkKey();
    }
    try {
      if (this.sealer.open(row.sealed, 'key-check') === KEY_CHECK_TEXT) return;
    } catch (err) {
      if (!(err instanceof SealError)) throw err;
    }
    throw new SealError(
      'POLBOT_ENCRYPTION_KEY: it is not the key the stored Slack installations were encrypted with (restore the earlier key, or clear the slack_installations and sealing_key_check tables and install again)',
    );
  }

  async storeInstallation(installation: Installation): Promise<void> {
    const key = installationKey({
      isEnterpriseInstall: installation.isEnterpriseInstall === true,
      enterpriseId: installation.enterprise?.id,
      teamId: installation.team?.id,
    });
    if (!key) throw new Error('the installation names neither a workspace nor an organisation');
    await this.db.query(
      `INSERT INTO slack_installations (installation_key, enterprise_id, team_id, is_enterprise_install, sealed, installed_by, installed_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (installation_key) DO UPDATE SET sealed = EXCLUDED.sealed, installed_by = EXCLUDED.installed_by, installed_at = EXCLUDED.installed_at`,
      [
        key,
        installation.enterprise?.id ?? null,
        installation.team?.id ?? null,
        installation.isEnterpriseInstall === true,
        this.sealer.seal(JSON.stringify(installation), key),
        installation.user?.id ?? null,
        new Date(this.clock()).toISOString(),
      ],
    );
  }

  async fetchInstallation(query: InstallationQuery<boolean>): Promise<Installation<'v1' | 'v2', boolean>> {
    const found = await this.find(query);
    if (!found) throw new NoInstallationError(query.teamId ?? query.enterpriseId ?? 'unknown');
    return found;
  }

  /** The installation that answers for `query`, or null: the workspace's own, else its organisation's. */
  async find(query: {
    isEnterpriseInstall?: boolean;
    enterpriseId?: string | undefined;
    teamId?: string | undefined;
  }): Promise<Installation | null> {
    const keys = [installationKey(query), query.enterpriseId ? `E:${query.enterpriseId}` : null].filter((k): k is string => k !== null);
    for (const key of [...new Set(keys)]) {
      const [row] = await this.db.query<{ sealed: string }>('SELECT sealed FROM slack_installations WHERE installation_key = $1', [key]);
      if (row) return JSON.parse(this.sealer.open(row.sealed, key)) as Installation;
    }
    return null;
  }

  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    await this.remove(query);
  }

  /** Deletes the installation (its tokens with it); says whether there was one. */
  async remove(query: { isEnterpriseInstall?: boolean; enterpriseId?: string | undefined; teamId?: string | undefined }): Promise<boolean> {
    const key = installationKey(query);
    if (!key) return false;
    return (
      (await this.db.query('DELETE FROM slack_installations WHERE installation_key = $1 RETURNING installation_key', [key])).length > 0
    );
  }

  async count(): Promise<number> {
    const [row] = await this.db.query<{ n: number }>('SELECT count(*)::int AS n FROM slack_installations');
    return Number(row?.n ?? 0);
  }
}

/** A request or a post for a workspace polbot is not installed in (any more). */
export class NoInstallationError extends Error {
  override name = 'NoInstallationError';
  constructor(readonly workspace: string) {
    super(`polbot is not installed in Slack workspace ${workspace}`);
  }
}
