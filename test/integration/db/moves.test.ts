import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertStore } from '../../../src/alerts/store.js';
import type { Db } from '../../../src/db/connection.js';
import { migrate } from '../../../src/db/migrations.js';
import { buildSchedule } from '../../../src/digest/schedule.js';
import { DigestStore } from '../../../src/digest/store.js';
import { moveChannel } from '../../../src/installs/moves.js';
import { addRule } from '../../helpers/alerts.js';
import { ENGINES, testDatabase, type TestDatabase } from '../../helpers/digest/helpers.js';

/**
 * A chat that gets a new id on its platform takes everything polbot keeps for it along: digests,
 * alert rules, mutes and its alert format, on both engines; another platform's chat of the same id,
 * and a format the new chat already had, stay as they were.
 */

const NOW = Date.parse('2026-11-22T07:00:00Z');
const schedule = (() => {
  const s = buildSchedule({ kind: 'daily', time: '09:00', timezone: 'UTC' });
  if (!s.ok) throw new Error(s.message);
  return s.value;
})();
const BITCOIN = { kind: 'project' as const, slug: 'bitcoin', name: 'Bitcoin', ticker: 'BTC' };

describe.each(ENGINES)('moving a chat (%s)', (engine) => {
  let t: TestDatabase;
  let db: Db;
  beforeAll(async () => {
    t = await testDatabase(engine);
    db = await t.connect();
    await migrate(db);
  });
  afterAll(async () => {
    await t.dispose();
  });

  it('moves digests, rules, mutes and the alert format, and leaves the rest', async () => {
    const digests = new DigestStore(db);
    const alerts = new AlertStore(db);
    const made = await digests.create({ platform: 'telegram', channelId: '-41', entities: [BITCOIN], schedule, createdBy: '7' }, NOW, 10);
    const other = await digests.create({ platform: 'slack', channelId: '-41', entities: [BITCOIN], schedule, createdBy: 'U1' }, NOW, 10);
    if (!made.ok || !other.ok) throw new Error('digests not created');
    const rule = await addRule(alerts, { platform: 'telegram', channelId: '-41', entities: [BITCOIN] }, NOW);
    await db.query(
      `INSERT INTO alert_mutes (platform, channel_id, scope, until, set_by, set_at) VALUES ('telegram', '-41', 'channel', $1, 'Ana', $2)`,
      [new Date(NOW + 3_600_000), new Date(NOW)],
    );
    await db.query(
      `INSERT INTO alert_channels (platform, channel_id, format, set_by, set_at) VALUES ('telegram', '-41', 'compact', 'Ana', $1), ('telegram', '-1009', 'full', 'Ben', $1)`,
      [new Date(NOW)],
    );

    expect(await moveChannel(db, 'telegram', '-41', '-1009')).toEqual({ digests: 1, alerts: 1 });
    const where = async (table: string) =>
      (await db.query<{ platform: string; channel_id: string }>(`SELECT platform, channel_id FROM ${table} ORDER BY platform`)).map(
        (r) => `${r.platform}:${r.channel_id}`,
      );
    expect(await where('digests')).toEqual(['slack:-41', 'telegram:-1009']);
    expect(await where('alert_rules')).toEqual(['telegram:-1009']);
    expect(await where('alert_mutes')).toEqual(['telegram:-1009']);
    // The new chat had chosen its format: it keeps it, and the old chat's row is gone.
    expect(await db.query('SELECT channel_id, format FROM alert_channels')).toEqual([{ channel_id: '-1009', format: 'full' }]);
    expect(await alerts.getInChannel(rule.id, 'telegram', '-1009')).toMatchObject({ id: rule.id, state: 'active' });

    expect(await moveChannel(db, 'telegram', '-41', '-1009')).toEqual({ digests: 0, alerts: 0 });
  });
});
