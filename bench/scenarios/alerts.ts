/**
 * Alert check rounds: 10,000 alert rules over 1,000 distinct entities (exchanges, at most a tenth
 * of them, then projects, synthetic ones included; the quick run has 500 rules over 50), created
 * with the real store in a real database (PGlite in memory) and checked by the real checker
 * through the shared cached source, caches cleared first. Upstream requests are counted at the
 * simulator.
 *
 * What an entity costs depends on what its rules watch: PoL, rating and their changes come from
 * one request (current PoL), category scores from another (the category breakdown), red flags
 * from a third (projects only). A rule on `security below 60` and one on `pol above 5%` watching
 * the same project need two requests for it, so "requests / entities" would read 2.00 for a
 * checker doing exactly what it must. Hence two sets of rules, each in a store of its own:
 *
 *   - PoL only: every rule needs the current PoL and nothing else (pol above, pol rises, rating
 *     below, downgrade; `any change` only on exchanges, since on a project it needs red flags
 *     too). The target is the issue's: upstream requests per round / distinct entities = 1.00.
 *   - All seven conditions: entities fall in groups watched for PoL only, categories only, red
 *     flags only, PoL and red flags (`any change`), or everything, so fetching a part no rule
 *     needs would show. The minimum is the distinct entity-parts the rules need, worked out here
 *     from the conditions (not from the checker's own `needsOf`), each fetched once directly
 *     through the source on cold caches to know its request. Target: requests / minimum = 1.00.
 *
 * A round is every rule checked once: the checker's batch is the number of rules, so one cycle
 * claims them all (more cycles run only if one claimed fewer). Then the checker's clock moves on
 * one check interval (5 minutes) and every rule is checked again, now judged against what the
 * first round saw; the caches are cleared again, as five minutes on the one-minute data cache
 * would have expired. Last, one more cycle at that same moment, when nothing is due.
 */
import type { Core } from '../../commands/core/core.js';
import { AlertChecker } from '../../src/alerts/checker.js';
import { categoriesFor, type Condition } from '../../src/alerts/condition.js';
import { AlertStore } from '../../src/alerts/store.js';
import type { Reading } from '../../src/alerts/evaluate.js';
import type { EntityKind, EntityRef } from '../../src/api/domain.js';
import { openPglite } from '../../src/db/connection.js';
import { migrate } from '../../src/db/migrations.js';
import { benchCore, clearCaches } from '../lib/polbot.js';
import { addBenchRule } from '../lib/rules.js';
import { profiled } from '../lib/profile.js';
import type { SimHandle } from '../lib/sim.js';
import { pooled, round as roundTo } from '../lib/stats.js';
import { fmtMs, type BenchOptions, type Row, type ScenarioResult } from '../lib/types.js';
import { universe } from '../lib/workload.js';

const CHECK_EVERY_SEC = 300;
/** Every fourth rule watches three entities of the same group instead of one. */
const MULTI_EVERY = 4;
const RULES_PER_CHANNEL = 10;
const CHANNELS_PER_WORKSPACE = 10;
/** The check rounds stop here if they have not finished, and report how far they got. */
const TIME_BUDGET_MS = { quick: 30_000, full: 600_000 };

type Part = 'pol' | 'categories' | 'flags';
type Group = 'pol' | 'categories' | 'flags' | 'pol+flags' | 'all';
const GROUPS: readonly Group[] = ['pol', 'categories', 'flags', 'pol+flags', 'all'];

/** What one condition needs of one entity, from the upstream's routes (independent of the checker's own reckoning). */
function partsOf(c: Condition, kind: EntityKind): Part[] {
  switch (c.kind) {
    case 'pol_above':
    case 'pol_rises':
    case 'rating_below':
    case 'downgrade':
      return ['pol'];
    case 'any_change':
      return kind === 'project' ? ['pol', 'flags'] : ['pol'];
    case 'new_red_flag':
      return kind === 'project' ? ['flags'] : [];
    case 'category_below':
      return ['categories'];
    case 'listed_downgrade':
    case 'listed_above':
      // A list read page by page is no single part: the exposure scenario measures these.
      throw new Error('conditions on listed assets are measured by the exposure scenario');
  }
}

/** The PoL family, varied in its thresholds. */
function polText(n: number): string {
  switch (n % 4) {
    case 0:
      return `pol above ${2 + (n % 9)}%`;
    case 1:
      return `pol rises by ${1 + (n % 3)}pp in ${1 + (n % 7)}d`;
    case 2:
      return `rating below ${['AA', 'A', 'BBB', 'BB'][Math.floor(n / 4) % 4]}`;
    default:
      return 'downgrade';
  }
}

function categoryText(n: number, kinds: readonly EntityKind[]): string {
  const categories = categoriesFor(kinds);
  return `${categories[n % categories.length]!} below ${40 + (n % 40)}`;
}

/** The condition of the `n`-th rule of a group, for the kinds it watches. */
function conditionText(round: 'pol' | 'mix', group: Group, n: number, kinds: readonly EntityKind[]): string {
  const projectsOnly = kinds.every((k) => k === 'project');
  if (round === 'pol') return n % 5 === 4 && kinds.every((k) => k === 'exchange') ? 'any change' : polText(n);
  switch (group) {
    case 'pol':
      return polText(n);
    case 'categories':
      return categoryText(n, kinds);
    case 'flags':
      // An exchange has no red flags: its rules in this group watch a category instead.
      return projectsOnly ? 'new red flag' : categoryText(n, kinds);
    case 'pol+flags':
      return n % 2 === 0 ? 'any change' : polText(n);
    case 'all': {
      const k = n % 7;
      // Red flags are refused on a rule that watches an exchange: it could never fire.
      return k < 4 ? polText(k) : k === 4 ? categoryText(n, kinds) : k === 5 && projectsOnly ? 'new red flag' : 'any change';
    }
  }
}

const keyOf = (e: { kind: string; slug: string }) => `${e.kind}:${e.slug}`;

/** Every rule checked once. */
interface Pass {
  cycles: number;
  claimed: number;
  events: Record<string, number>;
  upstream: number;
  byPath: [string, number][];
  wallMs: number;
  /** When the checker first asked the source (claiming came before), and when its last read settled; from the start. */
  readsStartMs: number;
  readsEndMs: number;
}

interface RoundResult {
  rules: number;
  entities: number;
  /** Distinct (entity, part) pairs the rules need. */
  entityParts: number;
  /** Distinct requests fetching each needed part once, measured on cold caches. */
  minimum: number;
  minimumPaths: Set<string>;
  /** Rules with a recorded check after the first pass. */
  checked: number;
  /** (rule, entity) pairs, and those whose reading lacks a part the rule needs, after the first pass. */
  watches: number;
  unread: number;
  timedOut: boolean;
  first: Pass;
  /** One check interval later: every rule due again, with readings to compare against. */
  next: Pass;
  /** A cycle when nothing is due. */
  idle: { rules: number; wallMs: number };
  createMs: number;
}

async function checkRound(
  sim: SimHandle,
  core: Core,
  o: BenchOptions,
  kind: 'pol' | 'mix',
  entities: EntityRef[],
  rulesWanted: number,
): Promise<RoundResult> {
  const db = await openPglite();
  try {
    await migrate(db);
    const store = new AlertStore(db);
    const n = entities.length;
    const stride = Math.floor(n / (3 * GROUPS.length)) * GROUPS.length;
    if (n % GROUPS.length !== 0 || stride === 0)
      throw new Error(`the entities (${n}) must be a multiple of ${GROUPS.length}, at least ${3 * GROUPS.length}`);

    // Rules: the i-th watches entity i mod n (and two more of its group every fourth rule).
    const now0 = Date.now();
    const needs = new Map<string, { entity: EntityRef; parts: Set<Part> }>();
    const created0 = performance.now();
    for (let i = 0; i < rulesWanted; i++) {
      const first = i % n;
      const watched =
        i % MULTI_EVERY === MULTI_EVERY - 1
          ? [first, (first + stride) % n, (first + 2 * stride) % n].map((k) => entities[k]!)
          : [entities[first]!];
      const kinds = watched.map((e) => e.kind);
      const text = conditionText(kind, GROUPS[first % GROUPS.length]!, Math.floor(i / n), kinds);
      const channel = Math.floor(i / RULES_PER_CHANNEL);
      const condition = await addBenchRule(
        store,
        {
          text,
          entities: watched,
          workspaceId: `T${String(Math.floor(channel / CHANNELS_PER_WORKSPACE)).padStart(6, '0')}`,
          channelId: `C${String(channel).padStart(8, '0')}`,
          everySec: CHECK_EVERY_SEC,
        },
        now0,
        rulesWanted,
      );
      for (const e of watched) {
        const need = needs.get(keyOf(e)) ?? { entity: e, parts: new Set<Part>() };
        for (const p of partsOf(condition, e.kind)) need.parts.add(p);
        needs.set(keyOf(e), need);
      }
    }
    const createMs = performance.now() - created0;
    const entityParts = [...needs.values()].reduce((sum, need) => sum + need.parts.size, 0);

    // The minimum: each needed part of each entity fetched once, directly, on cold caches.
    await sim.setFaults({ latencyMs: 0, jitterMs: 0 });
    clearCaches(core);
    await sim.resetCounter();
    const source = core.ctx.source;
    const fetches = [...needs.values()].flatMap(({ entity, parts }) => [...parts].map((part) => ({ entity, part })));
    await pooled(
      fetches,
      32,
      async ({ entity: { kind, slug }, part }): Promise<unknown> =>
        part === 'pol' ? source.polCurrent(kind, slug) : part === 'categories' ? source.byCategory(kind, slug) : source.redFlags(slug),
    );
    const minimumPaths = new Set((await sim.counter()).byPath.map(([p]) => p));

    // The checker reads through the shared cached source; the wrapper only notes when its first
    // read started and its last one settled, to tell the upstream's share of a round from the store's.
    let firstRead = 0;
    let lastRead = 0;
    const timedSource = new Proxy(source, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (!firstRead) firstRead = performance.now();
          const out = value.apply(target, args);
          if (out instanceof Promise) {
            void out
              .finally(() => {
                lastRead = performance.now();
              })
              .catch(() => undefined);
          }
          return out;
        };
      },
    });
    let clock = now0 + 1_000;
    const checker = new AlertChecker(store, timedSource, { instance: 'bench', leaseMs: 15 * 60_000, batch: rulesWanted, now: () => clock });
    const budget = o.quick ? TIME_BUDGET_MS.quick : TIME_BUDGET_MS.full;
    const roundStarted = performance.now();

    /** Cycles until every rule has been claimed once (one cycle when the batch holds them all), on cold caches. */
    const checkAll = async (): Promise<Pass> => {
      clearCaches(core);
      await sim.resetCounter();
      const pass: Pass = { cycles: 0, claimed: 0, events: {}, upstream: 0, byPath: [], wallMs: 0, readsStartMs: 0, readsEndMs: 0 };
      const started = performance.now();
      firstRead = 0;
      lastRead = started;
      while (pass.claimed < rulesWanted) {
        if (performance.now() - roundStarted > budget) break;
        const r = await checker.cycle();
        pass.cycles++;
        pass.claimed += r.rules;
        for (const e of r.events) pass.events[e.type] = (pass.events[e.type] ?? 0) + 1;
        if (r.rules === 0) break;
      }
      pass.wallMs = performance.now() - started;
      pass.readsStartMs = (firstRead || started) - started;
      pass.readsEndMs = lastRead - started;
      const counter = await sim.counter();
      pass.upstream = counter.total;
      pass.byPath = counter.byPath;
      return pass;
    };

    // The round: every rule due, caches cold, the injected latency on.
    await sim.setFaults({ latencyMs: o.latencyMs, jitterMs: o.jitterMs });
    const first = await profiled(`alerts-${kind}`, checkAll);
    const [checkedRow] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM alert_rules WHERE last_checked_at IS NOT NULL');
    // A request counted is not a value read: every part a rule needs must have come back.
    const stored = await db.query<{ condition: Condition; kind: EntityKind; reading: Reading | null }>(
      'SELECT r.condition, e.kind, e.reading FROM alert_rule_entities e JOIN alert_rules r ON r.id = e.rule_id',
    );
    const unread = stored.filter(
      ({ condition, kind: k, reading }) =>
        !reading || partsOf(condition, k).some((part) => (part === 'pol' ? reading.pol : reading[part]) === null),
    ).length;

    // One check interval later by the checker's clock: every rule due again, now judged against
    // what the first round saw. The data cache keeps PoL and categories a minute, so five minutes
    // on the upstream is asked again: the caches start cold here too.
    clock += CHECK_EVERY_SEC * 1_000;
    const next = await checkAll();

    // The same moment again: nothing is due.
    const idle0 = performance.now();
    const idle = await checker.cycle();
    const idleMs = performance.now() - idle0;

    return {
      rules: rulesWanted,
      entities: needs.size,
      entityParts,
      minimum: minimumPaths.size,
      minimumPaths,
      checked: Number(checkedRow?.n ?? 0),
      watches: stored.length,
      unread,
      timedOut: first.claimed < rulesWanted || next.claimed < rulesWanted,
      first,
      next,
      idle: { rules: idle.rules, wallMs: idleMs },
      createMs,
    };
  } finally {
    await db.close();
  }
}

const strays = (r: RoundResult, p: Pass) => p.byPath.filter(([path]) => !r.minimumPaths.has(path));

/** Every rule checked, exactly `denominator` requests, and none outside what the rules need; null when it ran out of time. */
function exact(r: RoundResult, p: Pass, denominator: number): boolean | null {
  if (r.timedOut) return null;
  return (
    p.claimed === r.rules &&
    r.checked === r.rules &&
    r.unread === 0 &&
    p.upstream === denominator &&
    r.minimum === r.entityParts &&
    strays(r, p).length === 0
  );
}

const count = (n: number) => n.toLocaleString('en-US');
const ratio = (a: number, b: number) => `${count(a)} / ${count(b)} = ${(a / b).toFixed(2)}`;

export async function alertsScenario(sim: SimHandle, o: BenchOptions): Promise<ScenarioResult> {
  const rulesWanted = o.quick ? 500 : 10_000;
  const entitiesWanted = o.quick ? 50 : 1_000;
  const core = await benchCore(sim, o.log);
  try {
    const u = await universe(core);
    // Exchanges (at most a tenth: they have no red flags), then projects, catalog before synthetic ones.
    const exchanges = u.exchanges.slice(0, Math.floor(entitiesWanted / 10));
    const entities: EntityRef[] = [...exchanges, ...u.projects].slice(0, entitiesWanted);
    if (entities.length < entitiesWanted) throw new Error(`the simulator lists only ${entities.length} entities`);

    const pol = await checkRound(sim, core, o, 'pol', entities, rulesWanted);
    const mix = await checkRound(sim, core, o, 'mix', entities, rulesWanted);
    const notes: string[] = [];
    for (const [name, r] of [['PoL only', pol] as const, ['all seven conditions', mix] as const]) {
      if (r.minimum !== r.entityParts)
        notes.push(`${name}: fetching the ${r.entityParts} needed entity-parts once each took ${r.minimum} distinct requests`);
      for (const [which, p] of [['first', r.first] as const, ['next', r.next] as const]) {
        const stray = strays(r, p);
        if (stray.length)
          notes.push(`${name}, ${which} round: ${stray.length} requested paths outside the minimum, such as ${stray[0]![0]}`);
        if (p.cycles > 1) notes.push(`${name}, ${which} round: ${p.cycles} cycles`);
      }
      if (r.unread) notes.push(`${name}: ${r.unread} of ${r.watches} rule-entity readings lack a part their rule needs`);
      if (r.timedOut)
        notes.push(
          `${name}: stopped at the ${(o.quick ? TIME_BUDGET_MS.quick : TIME_BUDGET_MS.full) / 1000} s budget, ${r.checked} of ${r.rules} rules checked`,
        );
    }

    const rows: Row[] = [
      {
        metric: `8. alert check, PoL-only rules: upstream requests per round / distinct entities (${count(pol.rules)} rules, ${count(pol.entities)} entities)`,
        measured: ratio(pol.first.upstream, pol.entities),
        target: '1.00',
        pass: exact(pol, pol.first, pol.entities),
      },
      {
        metric: `8. alert check, all seven conditions: upstream requests per round / distinct entity-parts (${count(mix.rules)} rules, ${count(mix.entities)} entities)`,
        measured: `${ratio(mix.first.upstream, mix.entityParts)} (${(mix.first.upstream / mix.entities).toFixed(2)} requests per entity)`,
        target: '1.00',
        pass: exact(mix, mix.first, mix.entityParts),
      },
      {
        metric: '8. alert check, next round (one interval on, judged against the first): the same ratios, PoL only; all seven',
        measured: `${ratio(pol.next.upstream, pol.entities)}; ${ratio(mix.next.upstream, mix.entityParts)}`,
        target: '1.00',
        pass: pol.timedOut || mix.timedOut ? null : Boolean(exact(pol, pol.next, pol.entities) && exact(mix, mix.next, mix.entityParts)),
      },
      {
        metric: '8. alert check: round wall time, first / next, all seven conditions; PoL only',
        measured:
          `${fmtMs(mix.first.wallMs)} (claiming ${fmtMs(mix.first.readsStartMs)}, reading to ${fmtMs(mix.first.readsEndMs)}) / ${fmtMs(mix.next.wallMs)}, ` +
          `${fmtMs(mix.first.wallMs / mix.rules)} a rule; ${fmtMs(pol.first.wallMs)} / ${fmtMs(pol.next.wallMs)}`,
        target: '—',
        pass: null,
      },
      {
        metric: `8. alert check: a cycle with nothing due (${count(mix.rules)} rules stored)`,
        measured: fmtMs(mix.idle.wallMs),
        target: '—',
        pass: null,
      },
    ];
    const pass = (r: RoundResult, p: Pass) => ({
      cycles: p.cycles,
      claimed: p.claimed,
      events: p.events,
      upstream: p.upstream,
      wallMs: roundTo(p.wallMs),
      readsStartMs: roundTo(p.readsStartMs),
      readsEndMs: roundTo(p.readsEndMs),
      perRuleMs: roundTo(p.wallMs / r.rules, 2),
      repeatedPaths: p.byPath.filter(([, n]) => n > 1).slice(0, 10),
      strayPaths: strays(r, p).slice(0, 10),
    });
    const detail = (r: RoundResult) => ({
      rules: r.rules,
      entities: r.entities,
      entityParts: r.entityParts,
      minimum: r.minimum,
      checked: r.checked,
      watches: r.watches,
      unread: r.unread,
      timedOut: r.timedOut,
      createMs: roundTo(r.createMs),
      first: pass(r, r.first),
      next: pass(r, r.next),
      idle: { ...r.idle, wallMs: roundTo(r.idle.wallMs, 2) },
    });
    return { rows, details: { polOnly: detail(pol), allConditions: detail(mix) }, ...(notes.length ? { notes } : {}) };
  } finally {
    await core.close();
  }
}
