/**
 * Exposure checks: alert rules on exchanges' listed assets (`a listed asset is downgraded`, `a
 * listed asset above 20%`), many of them watching the same few exchanges (the quick run has 100
 * rules over 3 exchanges; the full run 1,000 over 10), created with the real store in a real
 * database (PGlite in memory) and checked by the real checker through the shared cached source.
 *
 * An exchange's listed assets come page by page (50 a page at most), so an exchange costs as many
 * requests as its list has pages, however many rules watch it. The minimum is measured, not
 * assumed: each exchange's list read once, directly through the source, on cold caches; its
 * distinct requests are the pages. Target: upstream requests per check round / that minimum =
 * 1.00, with nothing else asked of the upstream. Then one check interval later (caches cold
 * again, as five minutes on the listed assets' cache would have expired) every rule is judged
 * against the first round: the same ratio. Each exchange's read is kept once as a reading for
 * `exposure`. Last, `exposure` itself, once per exchange on cold caches: its listed-asset
 * requests per look / pages, and how long a look takes.
 */
import type { Core } from '../../commands/core/core.js';
import { AlertChecker } from '../../src/alerts/checker.js';
import { AlertStore } from '../../src/alerts/store.js';
import type { EntityRef } from '../../src/api/domain.js';
import { openPglite } from '../../src/db/connection.js';
import { migrate } from '../../src/db/migrations.js';
import { readListed } from '../../src/exposure/listed.js';
import { ListedReadingStore } from '../../src/exposure/store.js';
import { benchCore, clearCaches } from '../lib/polbot.js';
import { addBenchRule } from '../lib/rules.js';
import type { SimHandle } from '../lib/sim.js';
import { round as roundTo, summarize } from '../lib/stats.js';
import { fmtMs, type BenchOptions, type Row, type ScenarioResult } from '../lib/types.js';
import { universe } from '../lib/workload.js';

const CHECK_EVERY_SEC = 300;
const RULES_PER_CHANNEL = 10;

const isListedPage = (path: string) => /^\/exchanges_data\/v1\/[^/]+\/listed_assets\?/.test(path);

interface Round {
  rules: number;
  requests: number;
  /** Requests for anything but a listed-asset page the minimum holds. */
  strays: [string, number][];
  wallMs: number;
}

const count = (n: number) => n.toLocaleString('en-US');
const ratio = (a: number, b: number) => `${count(a)} / ${count(b)} = ${(a / b).toFixed(2)}`;

export async function exposureScenario(sim: SimHandle, o: BenchOptions): Promise<ScenarioResult> {
  const rulesWanted = o.quick ? 100 : 1_000;
  const exchangesWanted = o.quick ? 3 : 10;
  const core = await benchCore(sim, o.log);
  const db = await openPglite();
  try {
    await migrate(db);
    const store = new AlertStore(db);
    const listed = new ListedReadingStore(db);
    const exchanges = (await universe(core)).exchanges.slice(0, exchangesWanted);
    if (exchanges.length < exchangesWanted) throw new Error(`the simulator lists only ${exchanges.length} exchanges`);

    const now0 = Date.now();
    for (let i = 0; i < rulesWanted; i++) {
      const text = i % 2 === 0 ? 'a listed asset is downgraded' : `a listed asset above ${20 + (i % 30)}%`;
      await addBenchRule(
        store,
        {
          text,
          entities: [exchanges[i % exchanges.length]!],
          workspaceId: 'T000001',
          channelId: `C${String(Math.floor(i / RULES_PER_CHANNEL)).padStart(8, '0')}`,
          everySec: CHECK_EVERY_SEC,
        },
        now0,
        rulesWanted,
      );
    }

    // The minimum: each exchange's list read once, directly, on cold caches, with no latency.
    await sim.setFaults({ latencyMs: 0, jitterMs: 0 });
    clearCaches(core);
    await sim.resetCounter();
    const source = core.ctx.source;
    for (const e of exchanges) await readListed(source, e.slug);
    const pages = new Set((await sim.counter()).byPath.map(([p]) => p).filter(isListedPage));

    let clock = now0 + 1_000;
    const checker = new AlertChecker(store, source, {
      instance: 'bench',
      leaseMs: 15 * 60_000,
      batch: rulesWanted,
      now: () => clock,
      listed,
    });
    const checkAll = async (): Promise<Round> => {
      clearCaches(core);
      await sim.resetCounter();
      const started = performance.now();
      let claimed = 0;
      for (let r = await checker.cycle(); r.rules > 0; r = await checker.cycle()) {
        claimed += r.rules;
        if (claimed >= rulesWanted) break;
      }
      const wallMs = performance.now() - started;
      const counter = await sim.counter();
      return { rules: claimed, requests: counter.total, strays: counter.byPath.filter(([p]) => !pages.has(p)), wallMs };
    };

    await sim.setFaults({ latencyMs: o.latencyMs, jitterMs: o.jitterMs });
    const first = await checkAll();
    clock += CHECK_EVERY_SEC * 1_000;
    const next = await checkAll();
    const [kept] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM listed_asset_readings');

    // `exposure` itself, a look at each exchange on cold caches.
    const looks = await lookAt(sim, core, exchanges, pages);

    const exact = (r: Round) => r.rules === rulesWanted && r.requests === pages.size && r.strays.length === 0;
    const notes = [first, next].flatMap((r, i) =>
      r.strays.length
        ? [`${i ? 'next' : 'first'} round: ${r.strays.length} requests outside the listed pages, such as ${r.strays[0]![0]}`]
        : [],
    );
    const rows: Row[] = [
      {
        metric: `8. exposure check: upstream requests per round / listed-asset pages (${count(rulesWanted)} rules on ${exchanges.length} exchanges, ${pages.size} pages)`,
        measured: ratio(first.requests, pages.size),
        target: '1.00',
        pass: exact(first),
      },
      {
        metric: '8. exposure check, next round (one interval on, judged against the first): the same ratio',
        measured: ratio(next.requests, pages.size),
        target: '1.00',
        pass: exact(next),
      },
      {
        metric: '8. exposure check: round wall time, first / next; readings kept',
        measured: `${fmtMs(first.wallMs)} / ${fmtMs(next.wallMs)}, ${fmtMs(first.wallMs / rulesWanted)} a rule; ${count(kept?.n ?? 0)} readings for ${exchanges.length} exchanges`,
        target: '—',
        pass: null,
      },
      {
        metric: '8. exposure command, cold cache: listed-asset requests per look / pages; time per look (p50, max)',
        measured: `${ratio(looks.listedRequests, pages.size)}; ${fmtMs(looks.ms.p50)}, ${fmtMs(looks.ms.max)}`,
        target: '1.00',
        pass: looks.listedRequests === pages.size && looks.refused === 0,
      },
    ];
    const detail = (r: Round) => ({ rules: r.rules, requests: r.requests, wallMs: roundTo(r.wallMs), strays: r.strays.slice(0, 10) });
    return {
      rows,
      details: {
        exchanges: exchanges.map((e) => e.slug),
        pages: pages.size,
        first: detail(first),
        next: detail(next),
        readingsKept: kept?.n ?? 0,
        looks: { ...looks, ms: { p50: roundTo(looks.ms.p50), max: roundTo(looks.ms.max) } },
      },
      ...(notes.length ? { notes } : {}),
    };
  } finally {
    await db.close();
    await core.close();
  }
}

/** One `exposure` look at each exchange, each on cold caches: what it asked of the listed assets, and how long it took. */
async function lookAt(sim: SimHandle, core: Core, exchanges: readonly EntityRef[], pages: ReadonlySet<string>) {
  let listedRequests = 0;
  let refused = 0;
  const times: number[] = [];
  for (const e of exchanges) {
    clearCaches(core);
    await sim.resetCounter();
    const started = performance.now();
    const { reply } = await core.run(`exposure exchange:${e.slug}`);
    times.push(performance.now() - started);
    if (reply.kind !== 'card') refused++;
    listedRequests += (await sim.counter()).byPath.filter(([p]) => pages.has(p)).reduce((n, [, c]) => n + c, 0);
  }
  const s = summarize(times);
  return { listedRequests, refused, ms: { p50: s.p50, max: s.max } };
}
