import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { deliveryKey } from '../../../src/digest/content.js';
import { polText, ppText } from '../../helpers/truth.js';
import type { TableReply } from '../../../src/reply/model.js';
import { ratingForPol } from '../../../src/sim/data/scales.js';
import { visibleText } from '../../helpers/core.js';
import { createHarness, slackCaller, type Harness } from '../../helpers/digest/harness.js';
import { ENGINES, MemoryDeliverer } from '../../helpers/digest/helpers.js';

const at = Date.parse;
const last = <T>(a: readonly T[]) => a[a.length - 1]!;
const section = (r: TableReply, title: string) => r.sections?.find((s) => s.title === title);
const row = (r: TableReply, name: string) => r.rows.find((x) => x.name === name);

describe.each(ENGINES)('digest content on %s', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(engine);
  });
  afterEach(() => h.reset());
  afterAll(() => h.close());

  it('tells what changed since the previous digest: a scripted downgrade, PoL move and new red flag', async () => {
    const platform = new MemoryDeliverer('slack');
    const s = h.scheduler([platform]);
    h.clock.set('2026-11-20T07:00:00Z');
    const id = await h.add('digest add pepe, binance, bitcoin daily at 09:00 tz Europe/Berlin', slackCaller('C-CONTENT'));
    const pepe = h.sim.project('pepe')!;
    const binance = h.sim.exchange('binance')!;
    const bitcoin = h.sim.project('bitcoin')!;
    const before = last(pepe.pol);

    // 09:00 in Berlin is 08:00 UTC in November.
    const slot1 = at('2026-11-20T08:00:00Z');
    expect((await s.tick(slot1)).delivered).toBe(1);
    const first = platform.posted[0]!.reply as TableReply;
    expect(first.title).toBe(`Watchlist digest #${id}`);
    expect(first.columns.map((c) => c.label)).toEqual(['Name', 'PoL', 'Change', 'Rating']);
    expect(first.rows).toEqual([
      { name: 'Pepe (PEPE)', pol: polText(before), change: '—', rating: ratingForPol(before) },
      { name: 'Binance', pol: polText(last(binance.pol)), change: '—', rating: ratingForPol(last(binance.pol)) },
      { name: 'Bitcoin (BTC)', pol: polText(last(bitcoin.pol)), change: '—', rating: ratingForPol(last(bitcoin.pol)) },
    ]);
    expect(first.note).toBe(
      '3 names · daily at 09:00 Europe/Berlin. PoL: lower is safer. First digest: changes are shown from the next one.',
    );
    expect(first.sections).toEqual([
      { title: 'Highlights', items: [], empty: 'This is the first digest: changes and highlights start with the next one.' },
    ]);
    expect(first.image).toMatchObject({ kind: 'png', filename: expect.stringMatching(/\.png$/) });
    expect(first.image?.kind === 'png' && first.image.alt).toMatch(/PoL of 3 entities/);
    expect(first.footer).toMatchObject({ simulated: true, sources: ['rest'] });
    expect(first.footer?.notes).toEqual([
      deliveryKey({ id, timezone: 'Europe/Berlin' }, slot1),
      'Next digest: Sat 2026-11-21 09:00 Europe/Berlin',
    ]);

    // Between the two digests: Pepe's PoL rises far enough to cost a rating notch, and a red flag appears.
    let after = before;
    while (ratingForPol(after) === ratingForPol(before)) after = Math.min(0.99, after * 1.15 + 0.001);
    h.sim.setPol('project', 'pepe', after);
    h.sim.addRedFlag('pepe', 'mm', 'Wash trading reported on two venues');
    h.expireCache();

    const slot2 = at('2026-11-21T08:00:00Z');
    expect((await s.tick(slot2)).delivered).toBe(1);
    const second = platform.posted[1]!.reply as TableReply;
    expect(row(second, 'Pepe (PEPE)')).toEqual({
      name: 'Pepe (PEPE)',
      pol: polText(after),
      change: `${ppText(after - before)} worse`,
      rating: `${ratingForPol(after)} (was ${ratingForPol(before)}, down)`,
    });
    expect(row(second, 'Binance')).toMatchObject({ change: '±0 pp', rating: ratingForPol(last(binance.pol)) });
    expect(row(second, 'Bitcoin (BTC)')).toMatchObject({ change: '±0 pp', rating: ratingForPol(last(bitcoin.pol)) });
    expect(second.note).toContain('Change: since the previous digest of 2026-11-20 09:00 Europe/Berlin.');
    expect(section(second, 'Rating downgrades')?.items).toEqual([`Pepe (PEPE): ${ratingForPol(before)} → ${ratingForPol(after)}`]);
    expect(section(second, 'PoL moves')).toEqual({
      title: 'PoL moves',
      direction: 'lower is safer',
      items: [`Pepe (PEPE): ${polText(before)} → ${polText(after)} (${ppText(after - before)}, worse)`],
    });
    expect(section(second, 'New red flags')?.items).toEqual(['Pepe (PEPE) · Market maker: Wash trading reported on two venues']);
    expect(section(second, 'Highlights')).toBeUndefined();

    // The comparison baseline is what was sent, stored with the run.
    const stored = (await h.store.run(id, slot2))?.content?.snapshot.entities.find((e) => e.slug === 'pepe');
    expect(stored).toMatchObject({ pol: after, rating: ratingForPol(after) });
    expect(stored?.flags).toContain('Market maker: Wash trading reported on two venues');

    // Nothing changes before the third: the red flag is no longer new, and the digest says so.
    h.expireCache();
    expect((await s.tick(at('2026-11-22T08:00:00Z'))).delivered).toBe(1);
    const third = platform.posted[2]!.reply as TableReply;
    expect(third.sections).toEqual([
      {
        title: 'Highlights',
        items: [],
        empty: 'No rating downgrades, PoL moves of 0.50 pp or more, or new red flags since the previous digest.',
      },
    ]);
    expect(third.rows.every((r) => r.change === '±0 pp')).toBe(true);
    expect(visibleText(third)).not.toMatch(/\bNaN\b|\bundefined\b|\bnull\b|\[object Object\]/);
  });

  it('splits a 25-name watchlist into balanced parts, each with its key, and leaves nothing out', async () => {
    const platform = new MemoryDeliverer('slack');
    h.clock.set('2026-11-20T07:00:00Z');
    const projects = h.sim.data.projects.slice(0, 25);
    const id = await h.add(`digest add ${projects.map((p) => `project:${p.slug}`).join(', ')} daily at 09:00`, slackCaller('C-BIG'));
    const slot = at('2026-11-20T09:00:00Z');
    expect((await h.scheduler([platform]).tick(slot)).delivered).toBe(1);
    expect(platform.keys('C-BIG')).toEqual([
      deliveryKey({ id, timezone: 'UTC' }, slot, 0, 2),
      deliveryKey({ id, timezone: 'UTC' }, slot, 1, 2),
    ]);
    expect(platform.keys('C-BIG')[1]).toMatch(/ · part 2\/2$/);
    const [one, two] = platform.posted.map((p) => p.reply as TableReply);
    expect(one!.title).toBe(`Watchlist digest #${id} (part 1 of 2)`);
    expect(two!.title).toBe(`Watchlist digest #${id} (part 2 of 2)`);
    expect([one!.rows.length, two!.rows.length]).toEqual([13, 12]);
    expect(two!.note).toBe('Names 14–25 of 25. PoL: lower is safer.');
    expect([...one!.rows, ...two!.rows].map((r) => r.name)).toEqual(projects.map((p) => `${p.name} (${p.ticker})`));
    expect([...one!.rows, ...two!.rows].map((r) => r.pol)).toEqual(projects.map((p) => polText(last(p.pol))));
    // Highlights and the chart once, in the first part.
    expect(one!.sections).toHaveLength(1);
    expect(one!.image?.kind).toBe('png');
    expect(two!.sections).toBeUndefined();
    expect(two!.image).toBeUndefined();
    expect(await h.store.run(id, slot)).toMatchObject({ status: 'delivered', partsTotal: 2, partsSent: 2 });
  });

  it('previews the digest in one reply without changing what the next digest compares with', async () => {
    const platform = new MemoryDeliverer('slack');
    h.clock.set('2026-11-20T07:00:00Z');
    const id = await h.add('digest add bitcoin, kraken daily at 09:00 tz America/New_York', slackCaller('C-PREVIEW'));
    const preview = (await h.ask(`digest preview ${id}`, slackCaller('C-PREVIEW', 'U-ANYONE', false))) as TableReply;
    expect(preview.kind).toBe('table');
    expect(preview.title).toBe(`Preview: watchlist digest #${id}`);
    expect(preview.rows.map((r) => r.name)).toEqual(['Bitcoin (BTC)', 'Kraken']);
    expect(preview.footer?.notes).toEqual([
      `Preview of digest #${id}: not a scheduled digest, and not a baseline for the next one.`,
      'Next digest: Fri 2026-11-20 09:00 America/New_York',
    ]);
    expect(preview.image?.kind).toBe('png');
    expect(await h.store.runs(id)).toEqual([]);
    // The preview's key-free footer can never be mistaken for a delivered digest.
    expect(preview.footer?.notes?.some((n) => n.startsWith(`digest #${id} ·`))).toBe(false);
    expect((await h.scheduler([platform]).tick(at('2026-11-20T14:00:00Z'))).delivered).toBe(1);
    expect((platform.posted[0]!.reply as TableReply).note).toContain('First digest');
  });
});
