import { describe, expect, it } from 'vitest';
import type { TableReply } from '../../../src/reply/model.js';
import { ask, useRestAndToolsOnly } from '../../helpers/core.js';
import { polText } from '../../helpers/truth.js';

/** Ratings with the filters the service lists, checked against the simulator's dataset. */

const cores = useRestAndToolsOnly();

const last = <T>(a: readonly T[]) => a[a.length - 1]!;
const store = () => cores.rest.upstream.sim!.store;

describe('ratings with filters', () => {
  it('filters by category and sorts by PoL, lowest first, 10 a page, as the dataset has them', async () => {
    const defi = store()
      .data.projects.filter((p) => p.category === 'DeFi')
      .sort((a, b) => last(a.pol) - last(b.pol));
    expect(defi.length).toBeGreaterThan(10);
    const r = (await ask(cores.rest, 'ratings projects categories=DeFi sort=pol order=asc')) as TableReply;
    expect(r.kind).toBe('table');
    expect(r.rows.map((row) => [row.name, row.pol])).toEqual(
      defi.slice(0, 10).map((p) => [`${p.name} (${p.ticker})`, polText(last(p.pol))]),
    );
    expect(r.note).toBe(`categories=DeFi sort=pol order=asc · page 1 of 2 · ${defi.length} projects. PoL: lower is safer.`);
    const next = r.actions?.find((a) => a.label === 'Next page');
    expect(next?.command).toBe('ratings projects categories=DeFi sort=pol order=asc page=2');

    const second = (await ask(cores.rest, next!.command!)) as TableReply;
    expect(second.rows.map((row) => row.name)).toEqual(defi.slice(10, 20).map((p) => `${p.name} (${p.ticker})`));
    expect(second.actions?.find((a) => a.label === 'Previous page')?.command).toBe('ratings projects categories=DeFi sort=pol order=asc');
    expect(second.actions?.some((a) => a.label === 'Next page')).toBe(false);
  });

  it('offers every filter and sort order the service lists as a menu, each option the same list with that one choice changed', async () => {
    const r = (await ask(cores.rest, 'ratings projects categories=DeFi sort=pol order=asc')) as TableReply;
    const menus = r.menus ?? [];
    expect(menus.map((m) => [m.label, m.typed, m.selected])).toEqual([
      ['Categories', 'categories=', 'DeFi'],
      ['Market cap', 'market_cap=', undefined],
      ['Chains', 'chains=', undefined],
      ['Compliance', 'compliance=', undefined],
      ['Sort by', 'sort=rank|name|pol|marketCap order=asc|desc', 'PoL, lowest first'],
    ]);
    // The dataset's own categories and chains, not a list kept here.
    const categories = [...new Set(store().data.projects.map((p) => p.category))].sort();
    expect(menus[0]!.options.map((o) => o.label)).toEqual(['Any', ...categories]);
    expect(menus[2]!.options.map((o) => o.label).sort()).toEqual([...new Set(store().data.projects.flatMap((p) => p.chains))].sort());
    expect(menus[0]!.options[0]!.command).toBe('ratings projects sort=pol order=asc');

    // A pick keeps the other filters and starts again at page 1.
    const layer1 = menus[0]!.options.find((o) => o.label === 'Layer 1')!;
    expect(layer1.command).toBe('ratings projects sort=pol order=asc categories="Layer 1"');
    const picked = (await ask(cores.rest, layer1.command!)) as TableReply;
    const expected = store()
      .data.projects.filter((p) => p.category === 'Layer 1')
      .sort((a, b) => last(a.pol) - last(b.pol));
    expect(picked.rows.map((row) => row.pol)).toEqual(expected.slice(0, 10).map((p) => polText(last(p.pol))));
    const byName = menus[4]!.options.find((o) => o.label === 'Name, Z to A')!;
    expect(byName.command).toBe('ratings projects categories=DeFi sort=name order=desc');

    // Exchanges: the three yes/no filters, and the tokens, too many to send, looked up as they are typed.
    const exchanges = (await ask(cores.rest, 'ratings exchanges')) as TableReply;
    expect(exchanges.menus?.map((m) => [m.label, m.options.map((o) => o.label).join('/')])).toEqual([
      ['Bug bounty', 'yes/no'],
      ['Proof of reserves', 'yes/no'],
      ['Penetration testing', 'yes/no'],
      ['Listed token', ''],
      [
        'Sort by',
        'Name, A to Z/Name, Z to A/PoL, lowest first/PoL, highest first/Trading volume, lowest first/Trading volume, highest first/Trading volume change, lowest first/Trading volume change, highest first/Rank, first to last/Rank, last to first',
      ],
    ]);
  });

  it('takes values as people type them: singular names, any case, hyphens for spaces', async () => {
    const expected = store()
      .data.projects.filter((p) => p.category === 'DeFi' && p.chains.includes('BNB Chain'))
      .map((p) => p.slug)
      .sort();
    expect(expected.length).toBeGreaterThan(0);
    const r = (await ask(cores.rest, 'ratings projects category=defi chains=bnb-chain')) as TableReply;
    expect(
      r.actions
        ?.filter((a) => a.run.command === 'card')
        .map((a) => String(a.run.args?.name).replace('project:', ''))
        .sort(),
    ).toEqual(expected);
    expect(r.note).toContain('categories=DeFi chains="BNB Chain"');
  });

  it('filters exchanges by a yes/no filter the exchange service lists', async () => {
    const withReserves = store()
      .data.exchanges.filter((e) => e.markers.isProofOfReservesPresent)
      .sort((a, b) => last(a.pol) - last(b.pol));
    const r = (await ask(cores.rest, 'ratings exchanges is_proof_of_reserves_present=yes sort=pol order=asc')) as TableReply;
    expect(r.rows.map((row) => row.name)).toEqual(withReserves.slice(0, 10).map((e) => e.name));
  });

  it.each([
    ['ratings projects categories=Defy', /^Unknown categories 'Defy': use one of AI, DeFi, /],
    [
      'ratings projects colour=red',
      /^Unknown filter 'colour': use one of categories, market_cap, chains, compliance, sort, order, page, export\.$/,
    ],
    ['ratings projects export=xlsx', /^Unknown export 'xlsx': use export=csv\.$/],
    ['ratings projects sort=hype', /^Unknown sort 'hype': use one of rank, name, pol, marketCap\.$/],
    ['ratings projects order=up', /^Unknown order 'up': use asc or desc\.$/],
    ['ratings projects hello', /^'hello' is not a filter: give name=value pairs/],
    ['ratings exchanges is_bug_bounty_present=maybe', /^is_bug_bounty_present takes yes or no, not 'maybe'\.$/],
    ['ratings projects page=99', /^There are 8 pages of projects for no filters; page 99 is past the last\.$/],
  ])('%s: the valid values, from the service', async (text, message) => {
    const r = await ask(cores.rest, text);
    expect(r.kind).toBe('error');
    expect((r as { message: string }).message).toMatch(message);
  });

  it('exports the whole filtered list as CSV, checked column by column against the dataset', async () => {
    const defi = store()
      .data.projects.filter((p) => p.category === 'DeFi')
      .sort((a, b) => last(a.pol) - last(b.pol));
    const r = (await ask(cores.rest, 'ratings projects categories=DeFi sort=pol order=asc')) as TableReply;
    const exportAction = r.actions?.find((a) => a.label === 'Export CSV');
    expect(exportAction?.command).toBe('ratings projects categories=DeFi sort=pol order=asc export=csv');
    const exported = (await ask(cores.rest, exportAction!.command!)) as TableReply;
    expect(exported.file).toMatchObject({
      filename: 'ratings-projects.csv',
      contentType: 'text/csv',
      title: `Ratings of projects, categories=DeFi sort=pol order=asc: ${defi.length} rows`,
    });
    // No name in the dataset holds a comma or a quote, so a plain split reads the file.
    expect(defi.some((p) => /[,"]/.test(p.name))).toBe(false);
    const [header, ...lines] = exported
      .file!.bytes.toString('utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    expect(header).toEqual(['rank', 'slug', 'name', 'ticker', 'pol', 'rating', 'market_cap_usd']);
    // Every row, not only the first page: the list has more than one page.
    expect(lines).toHaveLength(defi.length);
    expect(lines.map((l) => l[1])).toEqual(defi.map((p) => p.slug));
    expect(lines.map((l) => l[2])).toEqual(defi.map((p) => p.name));
    expect(lines.map((l) => l[3])).toEqual(defi.map((p) => p.ticker));
    expect(lines.map((l) => Number(l[4]))).toEqual(defi.map((p) => last(p.pol)));
    expect(lines.map((l) => Number(l[6]))).toEqual(defi.map((p) => p.market.marketCap));
    expect(lines.every((l) => /^(AAA|AA|A|BBB|BB|B|CCC|CC|C|D)$/.test(l[5]!))).toBe(true);
  });

  it('a filter that matches nothing says so in a sentence', async () => {
    const none = store().data.projects.filter((p) => p.category === 'Meme' && p.chains.includes('Bitcoin'));
    expect(none).toEqual([]);
    expect(await ask(cores.rest, 'ratings projects categories=Meme chains=Bitcoin')).toMatchObject({
      kind: 'text',
      text: 'No projects match categories=Meme chains=Bitcoin.',
    });
  });

  it('through the tool server alone, says plainly that ratings need the REST service', async () => {
    expect(await ask(cores.tools, 'ratings projects')).toMatchObject({
      kind: 'text',
      text: 'Ratings with filters need the REST service; the tool server has no tool for them.',
    });
  });
});
