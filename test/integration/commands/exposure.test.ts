import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../app/config.js';
import { coreParts } from '../../../app/core.js';
import { createCore, type Core } from '../../../commands/core/index.js';
import { openPglite, type Db } from '../../../src/db/connection.js';
import { migrate } from '../../../src/db/migrations.js';
import { ListedReadingStore } from '../../../src/exposure/store.js';
import type { CardReply, ErrorReply, Section, TextReply } from '../../../src/reply/model.js';
import type { Simulator } from '../../../src/sim/server.js';
import { Typist } from '../../helpers/console.js';
import { ask, demoCore } from '../../helpers/core.js';
import { simMove, startTestSimulator } from '../../helpers/sim.js';
import { polText, ppText } from '../../helpers/truth.js';

/**
 * `exposure <exchange> [7d|30d|90d]` against the simulator over loopback, with polbot's readings in
 * a database: a first look has nothing to compare with and says when it will; after a listed
 * project moves (`POST /_sim/move`), the next look shows the listed asset worse, worst first, with
 * its PoL now and then; a window older readings fall out of says so. The list is read page by
 * page, once a look. A project, an unknown window and the tool server alone are refused plainly.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-11-22T09:00:00Z');
let clock = T0;
let sim: Simulator;
let db: Db;
let rest: Core;
let tools: Core;
let chartDir: string;

beforeAll(async () => {
  sim = await startTestSimulator();
  db = await openPglite();
  await migrate(db);
  const config = loadConfig({ POL_API_BASE_URL: sim.url, POL_API_KEY: sim.apiKey, POL_TIMEOUT_MS: '3000', RATE_LIMIT_PER_USER: '0' });
  rest = createCore({ ...(await coreParts(config, { now: () => clock })), listed: new ListedReadingStore(db) });
  tools = await demoCore({ POL_SOURCE: 'mcp', POL_MCP_URL: sim.mcpUrl, POL_API_KEY: sim.apiKey });
  chartDir = await mkdtemp(join(tmpdir(), 'polbot-exposure-'));
});
afterAll(async () => {
  await Promise.all([rest.close(), tools.close()]);
  await db.close();
  await sim.close();
  await rm(chartDir, { recursive: true, force: true });
});

/** A look at `text`, with the cache emptied: what the simulator says now. */
async function look(text: string): Promise<CardReply> {
  rest.upstream.source.cache.clear();
  const reply = await ask(rest, text);
  expect(reply.kind, JSON.stringify(reply).slice(0, 300)).toBe('card');
  return reply as CardReply;
}

const section = (r: CardReply, title: string): Section => {
  const s = r.sections.find((x) => x.title === title);
  expect(s, `no section ${title} in ${r.sections.map((x) => x.title).join(', ')}`).toBeDefined();
  return s!;
};
const readings = async (exchange: string) =>
  (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM listed_asset_readings WHERE exchange = $1', [exchange]))[0]!.n;
/** Requests for `exchange`'s listed assets, every page counted. */
const listedRequests = (exchange: string) =>
  [...sim.counter.byPath].filter(([p]) => p.startsWith(`/exchanges_data/v1/${exchange}/listed_assets?`)).reduce((n, [, c]) => n + c, 0);

/** Binance's listed assets at or above 20% in the simulator's dataset (seed 42), highest first. */
const BINANCE_AT_20 = [
  'Terra Classic (LUNC): 96.1%',
  'ShibaSwap (BONE): 47.8%',
  'Mantle (MNT): 47.1%',
  'Wrapped Bitcoin (WBTC): 45.7%',
  'Terra (LUNA): 42.2%',
  'Pepe (PEPE): 35.1%',
  'Bitcoin SV (BSV): 24.0%',
  'Starknet (STRK): 22.8%',
  'Fantom (FTM): 21.8%',
  'Ondo (ONDO): 21.2%',
  'Arweave (AR): 20.2%',
];

describe('exposure', () => {
  it('says plainly on a first look that there is nothing to compare with yet, and when there will be', async () => {
    expect(sim.store.exchange('binance')!.listed).toHaveLength(45);
    const r = await look('exposure binance');
    expect(r.title).toBe('Exposure: Binance');
    expect(r.subtitle).toBe(
      "First look: polbot has no earlier reading of Binance's listed assets, so there is nothing to compare with yet. This look is kept: the next one shows what got worse since 2026-11-22 09:00 UTC, and a full 30-day comparison is possible from 2026-12-22 09:00 UTC. PoL: lower is safer.",
    );
    expect(r.headline).toEqual({ label: 'Listed assets at or above 20.0%', value: '11 of 45', direction: 'lower is safer' });
    expect(r.sections.map((s) => s.title)).toEqual(['At or above 20.0% now']);
    expect(section(r, 'At or above 20.0% now')).toMatchObject({ direction: 'lower is safer', items: BINANCE_AT_20 });
    // A card for each asset that is exactly one rated project; Mantle and Wrapped Bitcoin are tokens
    // of no rated project in the dataset, so they get none rather than a guess.
    expect(r.actions?.map((a) => [a.label, a.command])).toEqual([
      ['View Terra Classic', 'project:terra-classic'],
      ['View ShibaSwap', 'project:shibaswap'],
      ['View Terra', 'project:terra'],
      ['View Pepe', 'project:pepe'],
      ['View Bitcoin SV', 'project:bitcoin-sv'],
      ['Over 7 days', 'exposure exchange:binance 7d'],
      ['Over 90 days', 'exposure exchange:binance 90d'],
    ]);
    expect(r.footer).toMatchObject({ sources: ['rest'], simulated: true });
    expect(await readings('binance')).toBe(1);
  });

  it('shows a listed asset worse after its project moves, worst first, with its PoL now and then', async () => {
    const pepe = sim.store.project('pepe')!.pol.at(-1)!;
    const fantom = sim.store.project('fantom')!.pol.at(-1)!;
    expect([polText(pepe), polText(fantom)]).toEqual(['35.1%', '21.8%']);
    clock = T0 + HOUR;
    await simMove(sim, { kind: 'project', slug: 'fantom', pol: 0.25 });
    await simMove(sim, { kind: 'project', slug: 'pepe', pol: 0.61 });
    const r = await look('exposure binance');
    expect(r.subtitle).toBe(
      "Compared with polbot's first reading of Binance's listed assets, 2026-11-22 09:00 UTC: its readings start later than 30 days ago. PoL: lower is safer.",
    );
    expect(r.headline).toEqual({ label: 'Listed assets worse over 30 days', value: '2 of 45', direction: 'lower is safer' });
    expect(section(r, 'Worse since 2026-11-22 09:00 UTC')).toMatchObject({
      direction: 'lower is safer',
      items: [
        `Pepe (PEPE): 61.0% now, 35.1% then (${ppText(0.61 - pepe)})`,
        `Fantom (FTM): 25.0% now, 21.8% then (${ppText(0.25 - fantom)})`,
      ],
    });
    expect(ppText(0.61 - pepe)).toBe('+25.91 pp');
    expect(section(r, 'At or above 20.0% now').items?.slice(0, 3)).toEqual([
      'Terra Classic (LUNC): 96.1%',
      'Pepe (PEPE): 61.0%',
      'ShibaSwap (BONE): 47.8%',
    ]);
    expect(r.actions?.slice(0, 2).map((a) => a.command)).toEqual(['project:pepe', 'project:fantom']);
    // The first look and this one: two readings of the day.
    expect(await readings('binance')).toBe(2);

    // The console prints the same look.
    const typed = new Typist(rest, chartDir);
    try {
      rest.upstream.source.cache.clear();
      const printed = await typed.type('exposure binance');
      expect(printed).toContain('Exposure: Binance');
      expect(printed).toContain('Pepe (PEPE): 61.0% now, 35.1% then (+25.91 pp)');
      expect(printed).toContain('SIMULATED DATA');
    } finally {
      await typed.close();
    }
  });

  it('compares with the earliest reading within the window, and says when there is none in it', async () => {
    const ape = sim.store.project('apecoin')!.pol.at(-1)!;
    expect(polText(ape)).toBe('23.6%');
    // A look ten days ago, then ApeCoin moves.
    clock = T0 - 10 * DAY;
    expect((await look('exposure okx')).subtitle).toMatch(/^First look: /);
    clock = T0;
    await simMove(sim, { kind: 'project', slug: 'apecoin', pol: 0.3 });

    const week = await look('exposure okx 7d');
    expect(week.subtitle).toBe(
      "Nothing to compare with in the last 7 days: polbot's readings of OKX's listed assets are all older. This look is kept: the next one shows what got worse since 2026-11-22 09:00 UTC. PoL: lower is safer.",
    );
    expect(week.sections.map((s) => s.title)).toEqual(['At or above 20.0% now']);

    const month = await look('exposure okx 30d');
    expect(month.subtitle).toBe(
      "Compared with polbot's first reading of OKX's listed assets, 2026-11-12 09:00 UTC: its readings start later than 30 days ago. PoL: lower is safer.",
    );
    expect(section(month, 'Worse since 2026-11-12 09:00 UTC').items).toEqual([
      `ApeCoin (APE): 30.0% now, 23.6% then (${ppText(0.3 - ape)})`,
    ]);

    // The 7-day look a moment ago is in the window now, and nothing moved since.
    clock = T0 + HOUR;
    const again = await look('exposure okx 7d');
    expect(again.subtitle).toBe(
      "Compared with polbot's earliest reading of OKX's listed assets in the last 7 days, 2026-11-22 09:00 UTC. PoL: lower is safer.",
    );
    expect(again.headline).toMatchObject({ label: 'Listed assets worse over 7 days', value: '0 of 22' });
    expect(section(again, 'Worse since 2026-11-22 09:00 UTC')).toMatchObject({ items: [], empty: 'none of the 22 listed assets' });
  });

  it('reads a list of two pages page by page, once a look', async () => {
    expect(sim.store.exchange('kraken')!.listed).toHaveLength(53);
    const before = listedRequests('kraken');
    const r = await look('exposure kraken');
    expect(listedRequests('kraken') - before).toBe(2);
    expect(r.headline).toMatchObject({ value: '13 of 53' });
  });

  it('refuses a project, an unknown window and a project named explicitly, and keeps nothing', async () => {
    const kept = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM listed_asset_readings');
    expect(await ask(rest, 'exposure aave')).toMatchObject({
      kind: 'error',
      message: 'Aave is a project, and exposure is read from the assets an exchange lists.',
    });
    expect(await ask(rest, 'exposure project:aave')).toMatchObject({
      kind: 'error',
      message: 'Exposure is published for exchanges only: it is read from the assets an exchange lists.',
    });
    const window = (await ask(rest, 'exposure binance 14d')) as ErrorReply;
    expect(window).toMatchObject({ kind: 'error', message: "Unknown window '14d': use one of 7d, 30d, 90d." });
    expect(await db.query('SELECT count(*)::int AS n FROM listed_asset_readings')).toEqual(kept);
  });

  it('says with the tool server alone that exposure needs the REST service', async () => {
    for (const text of ['exposure binance', 'exposure exchange:kraken 7d']) {
      expect(await ask(tools, text)).toEqual({
        kind: 'text',
        title: 'Exposure',
        text: 'Exposure needs the REST service: it is read from the assets an exchange lists, and the tool server has no tool for them.',
      } satisfies TextReply);
    }
  });
});
