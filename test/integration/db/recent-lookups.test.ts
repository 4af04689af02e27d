import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite, type Db } from '../../../src/db/connection.js';
import { migrate } from '../../../src/db/migrations.js';
import { RecentLookups } from '../../../src/recent/lookups.js';

/** What a workspace asks most: the names most of its people have among their recent lookups, a workspace apart from another. */
describe('recent lookups, most asked', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openPglite();
    await migrate(db);
  });
  afterAll(() => db.close());

  it('orders a workspace’s names by how many people looked them up, then by the latest look', async () => {
    const store = new RecentLookups(db);
    const pepe = { kind: 'project' as const, slug: 'pepe', name: 'Pepe' };
    const aave = { kind: 'project' as const, slug: 'aave', name: 'Aave' };
    const kraken = { kind: 'exchange' as const, slug: 'kraken', name: 'Kraken' };
    const t = Date.parse('2026-11-20T09:00:00Z');
    const owner = (userId: string, workspaceId = 'T0ONE') => ({ platform: 'slack' as const, workspaceId, userId });
    await store.record(owner('U1'), pepe, t);
    await store.record(owner('U2'), pepe, t + 1);
    await store.record(owner('U3'), pepe, t + 2);
    await store.record(owner('U1'), aave, t + 3);
    await store.record(owner('U1'), kraken, t + 4);
    await store.record(owner('U2'), kraken, t + 5);
    // Another workspace's lookups count for it alone.
    for (const u of ['U7', 'U8', 'U9']) await store.record(owner(u, 'T0TWO'), aave, t + 6);
    expect(await store.mostAsked('slack', 'T0ONE', 3)).toEqual(['Pepe', 'Kraken', 'Aave']);
    expect(await store.mostAsked('slack', 'T0ONE', 1)).toEqual(['Pepe']);
    expect(await store.mostAsked('slack', 'T0TWO', 3)).toEqual(['Aave']);
    expect(await store.mostAsked('discord', 'T0ONE', 3)).toEqual([]);
  });
});
