/**
 * Digest fan-out: 10,000 digests over 1,000 entities, all due at the same slot, delivered by the
 * real scheduler from a real store (PGlite in memory) through the shared cached source. The
 * simulator is started with synthetic projects beyond its catalog so 1,000 distinct entities
 * exist. Upstream requests are counted at the simulator against the minimum: the union of what one
 * single-entity digest of each entity requests on its own.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Core } from '../../commands/core/core.js';
import type { EntityRef } from '../../src/api/domain.js';
import type { Reply } from '../../src/reply/model.js';
import { benchCore, clearCaches } from '../lib/polbot.js';
import { profiled } from '../lib/profile.js';
import type { SimHandle } from '../lib/sim.js';
import { memory, round } from '../lib/stats.js';
import { fmtMs, type BenchOptions, type Row, type ScenarioResult } from '../lib/types.js';
import { universe } from '../lib/workload.js';

const ENTITIES_PER_DIGEST = 5;
const DIGESTS_PER_CHANNEL = 10;
const SLOT_HOUR_UTC = 9;
/** The fan-out stops here if it has not finished, and reports how far it got. */
const TIME_BUDGET_MS = { quick: 45_000, full: 900_000 };

/** What the scenario needs from src/digest; checked at run time since the module is young. */
interface DigestModule {
  createDigests(o: {
    db?: unknown;
    config?: { dataDir?: string; databaseUrl?: string };
    ctx: Core['ctx'];
    deliverers: readonly { platform: 'slack' | 'discord'; post(channelId: string, reply: Reply, key: string): Promise<void> }[];
    now?: () => number;
  }): Promise<{
    store: { create(input: unknown, now: number, maxPerChannel: number): Promise<{ ok: boolean }> };
    scheduler: { tick(now?: number): Promise<{ claimed: number; delivered: number; failed: number; released: number; lost: number }> };
    stop(): Promise<void>;
  }>;
}

interface ContentModule {
  EntityLoader: new (source: Core['ctx']['source']) => unknown;
  buildDigest(loader: unknown, input: unknown): Promise<unknown>;
}

interface ScheduleModule {
  buildSchedule(
    spec: { kind: 'daily'; time?: string; timezone?: string },
    now?: number,
  ): { ok: true; value: unknown } | { ok: false; message: string };
}

async function loadDigestModules(): Promise<{ digest: DigestModule; content: ContentModule; schedule: ScheduleModule } | string> {
  const index = fileURLToPath(new URL('../../src/digest/index.ts', import.meta.url));
  if (!existsSync(index)) return 'src/digest/index.ts does not exist yet';
  const digest = (await import('../../src/digest/index.js')) as unknown as Partial<DigestModule>;
  const content = (await import('../../src/digest/content.js')) as unknown as Partial<ContentModule>;
  const schedule = (await import('../../src/digest/schedule.js')) as unknown as Partial<ScheduleModule>;
  if (typeof digest.createDigests !== 'function') return 'src/digest/index.ts does not export createDigests';
  if (typeof content.EntityLoader !== 'function' || typeof content.buildDigest !== 'function')
    return 'src/digest/content.ts lacks EntityLoader/buildDigest';
  if (typeof schedule.buildSchedule !== 'function') return 'src/digest/schedule.ts lacks buildSchedule';
  return { digest: digest as DigestModule, content: content as ContentModule, schedule: schedule as ScheduleModule };
}

/** The next 09:00 UTC at least a minute away, so every digest created now first falls due there. */
function nextSlotAfter(now: number): number {
  const d = new Date(now);
  let slot = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), SLOT_HOUR_UTC);
  if (slot - now < 60_000) slot += 86_400_000;
  return slot;
}

export async function digestScenario(sim: SimHandle, o: BenchOptions): Promise<ScenarioResult> {
  const digestsWanted = o.quick ? 100 : 10_000;
  const entitiesWanted = o.quick ? 20 : 1_000;
  const modules = await loadDigestModules();
  if (typeof modules === 'string') {
    return {
      rows: [{ metric: '6. digest fan-out', measured: 'not measured', target: 'requests = minimum', pass: null }],
      details: { skipped: modules },
      notes: [`digest fan-out not measured: ${modules}`],
    };
  }
  const core = await benchCore(sim, o.log);
  let digests: Awaited<ReturnType<DigestModule['createDigests']>> | undefined;
  try {
    const u = await universe(core);
    // Exchanges first (there are few), then projects, catalog before synthetic ones.
    const entities: EntityRef[] = [...u.exchanges, ...u.projects].slice(0, entitiesWanted);
    if (entities.length < entitiesWanted) throw new Error(`the simulator lists only ${entities.length} entities`);

    const now0 = Date.now();
    const slot = nextSlotAfter(now0);
    const sched = modules.schedule.buildSchedule({ kind: 'daily', time: `0${SLOT_HOUR_UTC}:00`, timezone: 'UTC' }, now0);
    if (!sched.ok) throw new Error(sched.message);
    const digestOf = (entity: EntityRef[], id: number) => ({
      id,
      platform: 'slack',
      channelId: 'C0',
      entities: entity,
      cron: (sched.value as { cron: string }).cron,
      scheduleLabel: 'daily',
      timezone: 'UTC',
      state: 'active',
      stateReason: null,
      createdBy: 'U0',
      createdAt: now0,
      nextSlot: slot,
      lastSlot: null,
      lastDeliveredAt: null,
      lastError: null,
    });

    // The minimum: each entity's own digest content, alone, on cold caches.
    await sim.setFaults({ latencyMs: 0, jitterMs: 0 });
    const minimum = new Set<string>();
    for (const [i, e] of entities.entries()) {
      clearCaches(core);
      await sim.resetCounter();
      const loader = new modules.content.EntityLoader(core.ctx.source);
      await modules.content.buildDigest(loader, {
        digest: digestOf([e], i + 1),
        slot,
        previous: null,
        unsent: 0,
        nextRun: null,
        now: slot,
      });
      for (const [p] of (await sim.counter()).byPath) minimum.add(p);
    }

    // 10,000 digests, five entities each, every entity watched by the same number of digests.
    let clock = now0;
    const deliveries: { channelId: string; key: string }[] = [];
    digests = await modules.digest.createDigests({
      ctx: core.ctx,
      deliverers: [{ platform: 'slack', post: async (channelId, _reply, key) => void deliveries.push({ channelId, key }) }],
      now: () => clock,
    });
    const stride = Math.max(1, Math.floor(entities.length / ENTITIES_PER_DIGEST));
    for (let i = 0; i < digestsWanted; i++) {
      const watched = Array.from({ length: ENTITIES_PER_DIGEST }, (_, k) => entities[(i + k * stride) % entities.length]!);
      const created = await digests.store.create(
        {
          platform: 'slack',
          channelId: `C${String(Math.floor(i / DIGESTS_PER_CHANNEL)).padStart(8, '0')}`,
          entities: watched,
          schedule: sched.value,
          createdBy: 'U0',
        },
        now0,
        DIGESTS_PER_CHANNEL,
      );
      if (!created.ok) throw new Error('digest could not be created');
    }

    // Everything falls due at once: tick back to back until nothing is left to claim.
    await sim.setFaults({ latencyMs: o.latencyMs, jitterMs: o.jitterMs });
    clearCaches(core);
    await sim.resetCounter();
    clock = slot + 1_000;
    const totals = { ticks: 0, claimed: 0, delivered: 0, failed: 0, released: 0, lost: 0 };
    const started = performance.now();
    const budget = o.quick ? TIME_BUDGET_MS.quick : TIME_BUDGET_MS.full;
    let timedOut = false;
    await profiled('digest', async () => {
      for (let guard = 0; guard < 10_000; guard++) {
        if (performance.now() - started > budget) {
          timedOut = true;
          break;
        }
        const r = await digests!.scheduler.tick(clock);
        totals.ticks++;
        totals.claimed += r.claimed;
        totals.delivered += r.delivered;
        totals.failed += r.failed;
        totals.released += r.released;
        totals.lost += r.lost;
        if (r.claimed === 0) break;
        clock = slot + 1_000 + (performance.now() - started);
      }
    });
    const wallMs = performance.now() - started;
    const after = await memory();
    const counter = await sim.counter();
    const ratio = counter.total / minimum.size;
    const repeated = counter.byPath.filter(([, n]) => n > 1);
    const rows: Row[] = [
      {
        metric: `6. digest fan-out: upstream requests / minimum (${digestsWanted.toLocaleString('en-US')} digests, ${entities.length} entities)`,
        measured: `${counter.total} / ${minimum.size} = ${ratio.toFixed(2)}`,
        target: '1.00',
        // Unfinished, fewer requests than the minimum prove nothing.
        pass: timedOut ? null : counter.total === minimum.size,
      },
      {
        metric: '6. digest fan-out: wall time, delivered',
        measured: `${fmtMs(wallMs)}, ${totals.delivered} of ${digestsWanted} (${totals.ticks} ticks)${timedOut ? `, stopped at the ${budget / 1000} s budget` : ''}`,
        target: '—',
        pass: null,
      },
    ];
    return {
      rows,
      details: {
        digests: digestsWanted,
        entities: entities.length,
        entitiesPerDigest: ENTITIES_PER_DIGEST,
        minimumRequests: minimum.size,
        upstreamRequests: counter.total,
        ratio: round(ratio, 3),
        repeatedPaths: repeated.length,
        repeatedExamples: repeated.slice(0, 10),
        wallMs: round(wallMs),
        timedOut,
        perDigestMs: round(wallMs / digestsWanted, 2),
        ticks: totals,
        posts: deliveries.length,
        processAfter: { rssMb: round(after.rssMb), heapMb: round(after.heapMb), externalMb: round(after.externalMb) },
        chartRenders: (core.charts as { stats?: () => unknown }).stats?.(),
      },
    };
  } finally {
    await digests?.stop().catch(() => undefined);
    await core.close();
  }
}
