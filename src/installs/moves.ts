import type { Db } from '../db/index.js';
import type { Platform } from '../workspace.js';

/**
 * A chat its platform gives a new id (a Telegram group that became a supergroup keeps its people
 * and history under another id): its digests, alert rules, mutes and alert format move with it in
 * one transaction, so they go on where the people now are. Moving again, or a chat with nothing,
 * changes nothing.
 */
export async function moveChannel(db: Db, platform: Platform, from: string, to: string): Promise<{ digests: number; alerts: number }> {
  if (from === to) return { digests: 0, alerts: 0 };
  return db.transaction(async (tx) => {
    const args = [platform, from, to];
    const digests = await tx.query('UPDATE digests SET channel_id = $3 WHERE platform = $1 AND channel_id = $2 RETURNING id', args);
    const alerts = await tx.query('UPDATE alert_rules SET channel_id = $3 WHERE platform = $1 AND channel_id = $2 RETURNING id', args);
    await tx.query('UPDATE alert_mutes SET channel_id = $3 WHERE platform = $1 AND channel_id = $2', args);
    // A format already set in the new chat stays; the old one is dropped.
    await tx.query(
      `UPDATE alert_channels SET channel_id = $3 WHERE platform = $1 AND channel_id = $2
       AND NOT EXISTS (SELECT 1 FROM alert_channels WHERE platform = $1 AND channel_id = $3)`,
      args,
    );
    await tx.query('DELETE FROM alert_channels WHERE platform = $1 AND channel_id = $2', [platform, from]);
    return { digests: digests.length, alerts: alerts.length };
  });
}
