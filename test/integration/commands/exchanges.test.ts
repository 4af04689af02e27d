import { describe, expect, it } from 'vitest';
import type { CardReply, Reply, TableReply, TextReply } from '../../../src/reply/model.js';
import type { SimExchange } from '../../../src/sim/data/model.js';
import { ask, useRestAndToolsOnly, visibleText } from '../../helpers/core.js';
import { countText, polText, scoreText, usdText } from '../../helpers/truth.js';

/**
 * An exchange in depth and the market around it: sections, dashboard, listed assets, lost funds,
 * transparency statistics and ratings by listed token, through REST and through the tool server
 * alone, with numbers checked against the simulator's dataset.
 */

const cores = useRestAndToolsOnly();
const store = () => cores.rest.upstream.sim!.store;
const exchange = (slug: string) => store().exchange(slug)! as SimExchange;
const last = <T>(a: readonly T[]) => a[a.length - 1]!;

function card(r: Reply): CardReply {
  expect(r.kind, JSON.stringify(r).slice(0, 300)).toBe('card');
  return r as CardReply;
}
const field = (r: CardReply | TextReply, title: string, label: string) =>
  r.sections?.find((s) => s.title === title)?.fields?.find((f) => f.label === label);

describe('exchange sections through REST', () => {
  it.each(['transparency', 'security', 'solvency'] as const)(
    '%s: the quality score, higher is better, never called PoL',
    async (category) => {
      const e = exchange('kraken');
      const r = card(await ask(cores.rest, `kraken ${category}`));
      const title = category[0]!.toUpperCase() + category.slice(1);
      expect(r.title).toBe(`Kraken: ${title}`);
      expect(r.headline).toMatchObject({
        label: `${title} quality score`,
        value: `${scoreText(last(e.categories[category].scores))} / 100`,
        direction: 'higher is better',
      });
      expect(r.headline.label).not.toMatch(/PoL|Probability/);
    },
  );

  it('transparency: what the exchange discloses, as the dataset has it', async () => {
    const e = exchange('kraken');
    const r = card(await ask(cores.rest, 'section kraken transparency'));
    expect(field(r, 'Disclosures', 'Proof of reserves')?.value).toBe(e.markers.isProofOfReservesPresent ? 'published' : 'not published');
    expect(field(r, 'Disclosures', 'Auditor')).toEqual({
      label: 'Auditor',
      value: e.transparency.auditor,
      detail: `last audit ${e.transparency.lastAuditAt!.slice(0, 10)}`,
    });
    expect(field(r, 'Disclosures', 'Team')?.value).toBe(e.transparency.isTeamPublic ? 'public' : 'not public');
    expect(field(r, 'Disclosures', 'Order book')?.value).toBe(e.transparency.isOrderBookPublic ? 'public' : 'not public');
  });

  it('security: bug bounty, penetration tests and certifications', async () => {
    const e = exchange('binance');
    const r = card(await ask(cores.rest, 'binance security'));
    expect(e.markers.isBugBountyPresent).toBe(true);
    expect(field(r, 'Safeguards', 'Bug bounty')?.value).toBe(`yes, up to ${usdText(e.security.bugBountyMaxUsd!)}`);
    expect(field(r, 'Safeguards', 'Penetration testing')?.detail).toBe(`last test ${e.security.lastPenetrationTestAt!.slice(0, 10)}`);
    expect(field(r, 'Safeguards', 'ISO 27001')?.value).toBe(e.security.isIso27001Present ? 'certified' : 'not certified');
    expect(field(r, 'Safeguards', 'SOC 2')?.value).toBe(e.security.isSoc2Present ? 'audited' : 'not audited');
  });

  it('solvency: reserves against liabilities with the 90-day chart, and a year of it a click away', async () => {
    const e = exchange('binance');
    const r = card(await ask(cores.rest, 'binance solvency'));
    const [reserves, liabilities] = [last(e.reserves), last(e.liabilities)];
    expect(field(r, 'Reserves against liabilities', 'Reserves')?.value).toBe(usdText(reserves));
    expect(field(r, 'Reserves against liabilities', 'Liabilities')?.value).toBe(usdText(liabilities));
    expect(field(r, 'Reserves against liabilities', 'Coverage')?.value).toBe(`${((reserves / liabilities) * 100).toFixed(1)}%`);
    expect(r.image?.kind).toBe('png');
    expect(r.image?.alt).toContain('Reserves and liabilities of Binance over 90 days');
    expect(r.series?.values.at(-1)).toBeCloseTo(reserves / liabilities, 10);
    expect(r.actions?.find((a) => a.label === 'Reserves, 1 year')?.command).toBe('chart exchange:binance 365d reserves');
  });

  it('solvency of an exchange that publishes no proof of reserves says there is nothing to compare', async () => {
    const without = store().data.exchanges.find((x) => !x.markers.isProofOfReservesPresent)!;
    const r = card(await ask(cores.rest, `section exchange:${without.slug} solvency`));
    expect(r.sections.find((s) => s.title === 'Reserves against liabilities')?.empty).toBe(
      'no proof of reserves published, so there is nothing to compare',
    );
    expect(r.image).toBeUndefined();
  });

  it('dashboard: PoL, category scores, reserves and how many assets it lists, in one card', async () => {
    const e = exchange('okx');
    const r = card(await ask(cores.rest, 'okx dashboard'));
    expect(r.headline).toMatchObject({ label: 'Probability of Loss', value: polText(last(e.pol)), direction: 'lower is safer' });
    expect(field(r, 'About', 'Listed assets')?.value).toBe(countText(e.listed.length));
    expect(field(r, 'Category quality scores', 'Solvency')?.value).toBe(scoreText(last(e.categories.solvency.scores)));
    expect(field(r, 'Reserves', 'Reserves')?.value).toBe(usdText(last(e.reserves)));
  });

  it('the exchange card offers every section, the assets and why as buttons', async () => {
    const r = card(await ask(cores.rest, 'exchange kraken'));
    expect(r.actions?.map((a) => a.command)).toEqual(
      expect.arrayContaining([
        'why exchange:kraken',
        'section exchange:kraken transparency',
        'section exchange:kraken security',
        'section exchange:kraken solvency',
        'section exchange:kraken dashboard',
        'assets exchange:kraken',
      ]),
    );
  });
});

describe('listed assets', () => {
  const tokensOf = (e: SimExchange) => e.listed.map((id) => store().data.tokens.find((t) => t.id === id)!);
  const slugOf = (name: string) => store().data.exchanges.find((x) => x.name === name)!.slug;

  it('pages through what the exchange lists, largest first, with each asset’s PoL', async () => {
    const e = exchange('binance');
    const listed = tokensOf(e).sort((a, b) => b.marketCap - a.marketCap);
    const r = (await ask(cores.rest, 'binance assets')) as TableReply;
    expect(r.kind).toBe('table');
    expect(r.note).toBe(`All · page 1 of ${Math.ceil(listed.length / 10)} · ${listed.length} assets. PoL: lower is safer.`);
    expect(r.rows.map((row) => [row.name, row.cap, row.pol])).toEqual(
      listed.slice(0, 10).map((t) => [`${t.name} (${t.ticker})`, usdText(t.marketCap), polText(t.polScore)]),
    );
    const next = r.actions?.find((a) => a.label === 'Next page');
    expect(next?.command).toBe('assets exchange:binance page=2');
    const second = (await ask(cores.rest, next?.command ?? '')) as TableReply;
    expect(second.rows.map((row) => row.n)).toEqual(listed.slice(10, 20).map((_, i) => String(11 + i)));
    expect(second.rows.map((row) => row.name)).toEqual(listed.slice(10, 20).map((t) => `${t.name} (${t.ticker})`));
  });

  it('filters by the exchange’s own categories and a search, sorts by PoL, and exports the whole list as CSV', async () => {
    const e = exchange('kraken');
    const defi = tokensOf(e)
      .filter((t) => t.category === 'DeFi')
      .sort((a, b) => a.polScore - b.polScore);
    expect(defi.length).toBeGreaterThan(1);
    const r = (await ask(cores.rest, 'assets kraken category=defi sort=polScore order=asc')) as TableReply;
    expect(r.rows.map((row) => row.pol)).toEqual(defi.slice(0, 10).map((t) => polText(t.polScore)));
    expect(r.menus?.find((m) => m.label === 'Category')?.selected).toBe(`DeFi (${defi.length})`);
    const exported = (await ask(cores.rest, 'assets kraken category=DeFi sort=polScore order=asc export=csv')) as TableReply;
    const [header, ...lines] = exported.file!.bytes.toString('utf8').trim().split('\n');
    expect(header).toBe('name,ticker,categories,market_cap_usd,pol');
    expect(lines.map((l) => l.split(','))).toEqual(defi.map((t) => [t.name, t.ticker, 'DeFi', String(t.marketCap), String(t.polScore)]));

    // Coinbase's slug is not its name: the name resolves.
    const found = tokensOf(exchange(slugOf('Coinbase'))).filter(
      (t) => t.name.toLowerCase().includes('coin') || t.ticker.toLowerCase().includes('coin'),
    );
    expect(found.length).toBeGreaterThan(0);
    const search = (await ask(cores.rest, 'assets coinbase search=coin')) as TableReply;
    expect(search.rows.map((row) => row.name).sort()).toEqual(found.map((t) => `${t.name} (${t.ticker})`).sort());
  });

  it('says so in a sentence when nothing matches, when a page is past the last, and lists the categories for an unknown one', async () => {
    expect(await ask(cores.rest, 'assets binance search=zzzz')).toMatchObject({
      kind: 'text',
      text: 'No asset listed on Binance matches search=zzzz.',
    });
    const pages = Math.ceil(exchange('binance').listed.length / 10);
    expect(await ask(cores.rest, 'assets binance page=99')).toMatchObject({
      kind: 'error',
      message: `There are ${pages} pages of assets; page 99 is past the last.`,
    });
    const unknown = await ask(cores.rest, 'assets binance category=Nope');
    expect(unknown.kind).toBe('error');
    expect(visibleText(unknown)).toContain("This exchange lists no 'Nope' assets: its categories are");
    expect(visibleText(unknown)).toContain('DeFi');
  });
});

describe('the market', () => {
  it('lost funds: the total, every year with a bar chart, the latest incidents first', async () => {
    const incidents = store().data.lostFunds;
    const total = incidents.reduce((s, i) => s + i.amountUsd, 0);
    const r = (await ask(cores.rest, 'lost-funds')) as TextReply;
    expect(r.kind).toBe('text');
    expect(field(r, 'In all', 'Lost')).toEqual({ label: 'Lost', value: usdText(total), detail: `${incidents.length} incidents on record` });
    const years = [...new Set(incidents.map((i) => Number(i.date.slice(0, 4))))].sort((a, b) => b - a);
    expect(r.sections?.find((s) => s.title === 'By year')?.fields?.map((f) => [f.label, f.value])).toEqual(
      years.map((y) => [String(y), usdText(incidents.filter((i) => i.date.startsWith(String(y))).reduce((s, i) => s + i.amountUsd, 0))]),
    );
    const newest = [...incidents].sort((a, b) => b.date.localeCompare(a.date))[0]!;
    expect(r.sections?.find((s) => s.title === 'Latest incidents')?.items?.[0]).toBe(
      `${newest.date.slice(0, 10)} · ${newest.exchange}: ${usdText(newest.amountUsd)}, ${newest.cause}`,
    );
    expect(r.image?.kind).toBe('png');
    // The chart's own words, oldest year first; its amounts are drawn, so only the years are checked here.
    expect(r.image?.alt).toMatch(new RegExp(`^Funds lost at exchanges by year: ${years.at(-1)} \\$`));
    for (const y of years) expect(r.image?.alt).toContain(`${y} $`);
  });

  it('transparency across exchanges: how many publish each safeguard, and the average score', async () => {
    const list = store().data.exchanges;
    const r = (await ask(cores.rest, 'transparency')) as TextReply;
    expect(field(r, 'Exchanges rated', 'Exchanges')?.value).toBe(String(list.length));
    const withReserves = list.filter((e) => e.markers.isProofOfReservesPresent).length;
    expect(field(r, 'Safeguards published (more is better)', 'Proof of reserves')).toEqual({
      label: 'Proof of reserves',
      value: String(withReserves),
      detail: `${Math.round((withReserves / list.length) * 100)}% of exchanges`,
    });
    expect(field(r, 'Safeguards published (more is better)', 'Bug bounty')?.value).toBe(
      String(list.filter((e) => e.markers.isBugBountyPresent).length),
    );
    // `/pol transparency kraken` is that exchange's section.
    expect(card(await ask(cores.rest, 'transparency kraken')).title).toBe('Kraken: Transparency');
  });

  it('exchange ratings by listed token, picked by ticker or name, and refused when a name is no token', async () => {
    const tokens = store().data.tokens;
    const btc = tokens.find((t) => t.ticker === 'BTC')!;
    const eth = tokens.find((t) => t.ticker === 'ETH')!;
    const listing = store().data.exchanges.filter((e) => e.listed.includes(btc.id) && e.listed.includes(eth.id));
    const r = (await ask(cores.rest, 'ratings exchanges listed_tokens=btc,ethereum sort=pol order=asc')) as TableReply;
    expect(r.note).toContain(
      `listed_tokens=BTC,ETH sort=pol order=asc · page 1 of ${Math.ceil(listing.length / 10)} · ${listing.length} exchanges`,
    );
    expect(r.rows.map((row) => row.pol)).toEqual(
      [...listing]
        .sort((a, b) => last(a.pol) - last(b.pol))
        .slice(0, 10)
        .map((e) => polText(last(e.pol))),
    );
    expect(r.actions?.find((a) => a.label === 'Next page')?.command).toBe(
      'ratings exchanges listed_tokens=BTC,ETH sort=pol order=asc page=2',
    );
    const wrong = await ask(cores.rest, 'ratings exchanges listed_tokens=bitco');
    expect(wrong).toMatchObject({ kind: 'error' });
    expect(visibleText(wrong)).toContain("No token is called 'bitco'. Did you mean Bitcoin (BTC)");
    // Autocomplete: the service's tickers, by ticker or name.
    await cores.rest.upstream.source.ratingTokens();
    await cores.rest.upstream.source.ratingParameters('exchange');
    expect((await cores.rest.autocomplete('ratings', 'filters', 'listed_tokens=ethe', { list: 'exchanges' }))[0]?.value).toBe(
      'listed_tokens=ETH',
    );
  });
});

describe('an exchange through the tool server alone', () => {
  it('answers each section with the quality score the tools give, and says plainly what needs REST', async () => {
    const e = exchange('binance');
    const r = card(await ask(cores.tools, 'section exchange:binance solvency'));
    expect(r.headline.value).toBe(`${scoreText(last(cores.toolSim.store.exchange('binance')!.categories.solvency.scores))} / 100`);
    expect(e.slug).toBe('binance');
    expect(r.sections.find((s) => s.title === 'Reserves against liabilities')?.empty).toBe('needs the REST service');
    // Nothing offered that could only fail.
    expect(r.actions?.map((a) => a.command)).not.toContain('assets exchange:binance');
    expect(r.actions?.map((a) => a.command)).not.toContain('section exchange:binance dashboard');
    for (const text of [
      'section exchange:binance dashboard',
      'assets exchange:binance',
      'lost-funds',
      'transparency',
      'ratings exchanges listed_tokens=BTC',
    ]) {
      const reply = await ask(cores.tools, text);
      expect(reply.kind, text).toBe('text');
      expect(visibleText(reply), text).toMatch(/needs? the REST service/);
    }
  });

  it('takes a typed name as the slug it must be, and says how to name an exchange when the service knows no such slug', async () => {
    expect(card(await ask(cores.tools, 'kraken transparency')).title).toBe('kraken: Transparency');
    const r = await ask(cores.tools, 'gate transparency');
    expect(r).toMatchObject({ kind: 'error', message: 'No exchange has the slug “gate”.' });
    expect(visibleText(r)).toContain('exchanges are named by their slug');
  });
});
