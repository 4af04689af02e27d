import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../../commands/core/core.js';
import { parseCondition } from '../../../src/alerts/condition.js';
import { AlertChecker } from '../../../src/alerts/checker.js';
import { AlertStore } from '../../../src/alerts/store.js';
import { openPglite, type Db } from '../../../src/db/connection.js';
import { migrate } from '../../../src/db/migrations.js';
import type { Simulator } from '../../../src/sim/server.js';
import { demoCore } from '../../helpers/core.js';

/**
 * Check cycles against the simulator, moved as the upstream would move: an incident opens once
 * when a line is crossed, stays open while it holds, a further crossing is "again", and a level
 * that falls back closes it by itself. Each entity is read once per cycle, however many rules watch it.
 */

const MINUTE = 60_000;
let core: Core;
let sim: Simulator;
let db: Db;
let store: AlertStore;
let clock = Date.parse('2026-11-22T08:00:00Z');

beforeAll(async () => {
  core = await demoCore();
  sim = core.upstream.sim!;
  db = await openPglite();
  await migrate(db);
  store = new AlertStore(db);
});
afterAll(async () => {
  await db.close();
  await core.close();
});

const checker = () => new AlertChecker(store, core.upstream.source, { instance: 'r1', leaseMs: MINUTE, batch: 100, now: () => clock });

/** The next cycle, 5 minutes on, with the source's cache emptied so it reads what the simulator says now. */
async function nextCycle() {
  clock += 5 * MINUTE;
  core.upstream.source.cache.clear();
  return checker().cycle();
}

async function addRule(slugs: [kind: 'project' | 'exchange', slug: string][], text: string, channelId: string) {
  const parsed = parseCondition(
    text,
    slugs.map(([k]) => k),
  );
  if (!parsed.ok) throw new Error(parsed.message);
  const created = await store.create(
    {
      platform: 'slack',
      workspaceId: 'T1',
      channelId,
      entities: slugs.map(([kind, slug]) => ({ kind, slug, name: slug })),
      condition: parsed.condition,
      conditionText: text,
      everySec: 300,
      cooldownSec: 3600,
      createdBy: 'U1',
    },
    clock,
    { perChannel: 50, perWorkspace: 500 },
  );
  if (!created.ok) throw new Error(created.reason);
  return created.rule;
}

describe('alert check cycles', () => {
  it('opens one incident when a level is crossed, holds it while it stays crossed, and clears it when it falls back', async () => {
    const pol = sim.store.exchange('kraken')!.pol.at(-1)!;
    const rule = await addRule([['exchange', 'kraken']], `pol above ${((pol + 0.02) * 100).toFixed(2)}%`, 'C-LEVEL');
    expect((await nextCycle()).events.filter((e) => e.rule.id === rule.id)).toEqual([]);

    sim.store.setPol('exchange', 'kraken', pol + 0.05);
    const crossed = (await nextCycle()).events.filter((e) => e.rule.id === rule.id);
    expect(crossed.map((e) => e.type)).toEqual(['opened']);
    expect(crossed[0]!.verdict.change).toEqual({
      from: `${(pol * 100).toFixed(1)}%`,
      to: `${((pol + 0.05) * 100).toFixed(1)}%`,
      trend: 'worse',
    });

    // Still above: nothing new. A replica restarting in between judges against the stored reading.
    expect((await nextCycle()).events.filter((e) => e.rule.id === rule.id)).toEqual([]);

    sim.store.setPol('exchange', 'kraken', pol);
    const cleared = (await nextCycle()).events.filter((e) => e.rule.id === rule.id);
    expect(cleared.map((e) => e.type)).toEqual(['cleared']);
    expect(await store.openIncidents(rule.id)).toEqual([]);
  });

  it('reads an entity once per cycle however many rules watch it, and reports a downgrade and a new red flag', async () => {
    const rules = await Promise.all([
      addRule([['project', 'pepe']], 'downgrade', 'C-MANY-1'),
      addRule([['project', 'pepe']], 'new red flag', 'C-MANY-2'),
      addRule(
        [
          ['project', 'pepe'],
          ['exchange', 'okx'],
        ],
        'any change',
        'C-MANY-3',
      ),
    ]);
    await nextCycle();
    const before = sim.counter.byRoute.get('GET /projects_data/v1/{slug}/pol/current') ?? 0;
    // Pepe is rated CC (0.35 in the dataset); 0.65 is D, a step down.
    expect(sim.store.project('pepe')!.pol.at(-1)).toBeLessThan(0.4);
    sim.store.setPol('project', 'pepe', 0.65);
    sim.store.addRedFlag('pepe', 'mm', 'Deployer wallet drained');
    const report = await nextCycle();
    // Three rules on pepe, one read of its PoL.
    expect((sim.counter.byRoute.get('GET /projects_data/v1/{slug}/pol/current') ?? 0) - before).toBe(1);
    expect(report.entities).toBeLessThanOrEqual(report.rules + 1);
    const mine = report.events.filter((e) => rules.some((r) => r.id === e.rule.id));
    expect(mine.map((e) => [e.rule.conditionText, e.entity.slug, e.type]).sort()).toEqual([
      ['any change', 'pepe', 'opened'],
      ['downgrade', 'pepe', 'opened'],
      ['new red flag', 'pepe', 'opened'],
    ]);
    expect(mine.find((e) => e.rule.conditionText === 'new red flag')?.verdict.newFlags).toEqual(['Market maker: Deployer wallet drained']);
  });
});
