import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SlackDeliveryError } from '../../../adapters/slack/index.js';
import { countText, polText, scoreText, usdText } from '../../helpers/truth.js';
import { DEFAULT_CHANNEL_ID } from '../../fakes/slack/index.js';
import { messageTexts, validateMessage } from '../../helpers/slack/block-kit-limits.js';
import {
  ackBody,
  blocksJson,
  decodeWire,
  ephemeralAnswer,
  headerOf,
  last,
  PNG_SIGNATURE,
  quiesce,
  SIGNING_SECRET,
  startHarness,
  tableRowsOf,
  uniqueId,
  type Harness,
} from '../../helpers/slack/harness.js';

// Node timers are millisecond-granular and may fire a hair early against performance.now().
const TIMER_SLACK_MS = 15;
const WAIT_MS = 8_000;

let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    customRoutes: [
      { path: '/healthz', method: 'GET', respond: async () => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: 'ok' }) },
    ],
  });
});

afterAll(async () => {
  await h.close();
});

beforeEach(async () => {
  await quiesce(h);
  h.fake.clear();
  h.fake.clearFailures();
  h.sim.faults.reset();
});

afterEach(() => {
  h.sim.faults.reset();
});

const posts = (channel = DEFAULT_CHANNEL_ID) =>
  h.fake.calls('chat.postMessage').filter((c) => c.args.channel === channel && c.status === 200);

describe('acknowledgement', () => {
  it('acks /pol at once, shows "Looking up…" while the upstream takes 5 s, then replaces it with the answer', async () => {
    // Warm the catalogue so the slow part is the card's own data, as for a real first look-up.
    await h.core.run('search kraken');
    h.sim.faults.set({ latencyMs: 5_000 });
    const id = uniqueId('slow');

    const response = await h.command('bitstamp', { responseId: id });

    expect(response.status).toBe(200);
    expect(response.elapsedMs).toBeLessThan(3_000);
    expect(ackBody(response)).toBeUndefined();
    const progress = await h.fake.waitFor('response_url', (c) => c.id === id, WAIT_MS);
    expect(progress.args).toMatchObject({ response_type: 'ephemeral', text: expect.stringContaining('Looking up “bitstamp”') });

    // The core gives up after its own deadline; the answer replaces "Looking up…".
    const answer = await h.fake.waitFor('response_url', (c) => c.id === id && c !== progress, 15_000);
    h.sim.faults.reset();
    const text = `${String(answer.args.text)} ${blocksJson(answer.args)}`;
    if (answer.args.response_type === 'ephemeral') {
      expect(answer.args.replace_original).toBe(true);
      expect(text).not.toMatch(/127\.0\.0\.1|https?:\/\/|svc_|\n\s+at |Error:/);
    } else {
      // A card that did make it in time goes to the channel, and "Looking up…" is removed.
      expect(answer.args).toEqual({ delete_original: true });
      expect(posts().length).toBe(1);
    }
  });

  it('answers a cached card with a bare ack and no "Looking up…"', async () => {
    await h.core.run('kraken');
    const id = uniqueId('cached');
    const response = await h.command('kraken', { responseId: id });

    expect(response.status).toBe(200);
    expect(ackBody(response)).toBeUndefined();
    const post = await h.fake.waitFor('chat.postMessage', undefined, WAIT_MS);
    expect(headerOf(post.args)).toBe('Kraken');
    await h.fake.waitFor('files.completeUploadExternal', undefined, WAIT_MS);
    expect(h.responses(id)).toEqual([]);
  });

  it('answers a personal answer (help) privately on the reply link, once, after a bare ack', async () => {
    const id = uniqueId('help');
    const response = await h.command('help', { responseId: id });

    const answer = await ephemeralAnswer(h, response, id);
    expect(answer).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(validateMessage(answer)).toEqual([]);
    expect(blocksJson(answer)).toContain('/pol compare');
    expect(h.responses(id)).toHaveLength(1);
    expect(h.fake.calls('chat.postMessage')).toEqual([]);
  });
});

describe('cards', () => {
  it('posts the card to the channel with the simulator numbers, direction labels and a PNG chart', async () => {
    const id = uniqueId('card');
    const response = await h.command('binance', { responseId: id });
    expect(response.status).toBe(200);

    const post = await h.fake.waitFor('chat.postMessage', (c) => c.args.channel === DEFAULT_CHANNEL_ID, WAIT_MS);
    const args = post.args;
    expect(validateMessage(args, { maxVisibleText: 10_000, requireFallbackText: true })).toEqual([]);
    expect(headerOf(args)).toBe('Binance');

    const binance = h.sim.store.exchange('binance')!;
    const json = blocksJson(args);
    expect(json).toContain(`*${polText(last(binance.pol))}*`);
    expect(json).toContain('_(lower is safer)_');
    expect(json).toContain('*Category quality scores*  _(higher is better)_');
    for (const [category, label] of [
      ['security', 'Security'],
      ['transparency', 'Transparency'],
      ['solvency', 'Solvency'],
    ] as const) {
      expect(json).toContain(`*${label}*\\n${scoreText(last(binance.categories[category].scores))}`);
    }
    expect(json).toContain('SIMULATED DATA');
    expect(json).toMatch(/as of \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC · source REST/);
    expect(String(args.text)).toContain(`Binance: Probability of Loss ${polText(last(binance.pol))}`);
    expect(String(args.text)).toContain('SIMULATED DATA');

    const complete = await h.fake.waitFor('files.completeUploadExternal', undefined, WAIT_MS);
    expect(complete.args.channel_id).toBe(DEFAULT_CHANNEL_ID);
    const [file] = complete.args.files as { title: string }[];
    expect(file?.title).toMatch(/Binance over 90 days$/);
    const [upload] = h.fake.uploads();
    expect(upload?.filename).toMatch(/^exchange-binance-.*\.png$/);
    expect(upload?.bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(upload!.bytes.length).toBeGreaterThan(1_000);
  });

  it('answers a follow-up button on a card in the card thread, never touching the card itself', async () => {
    const id = uniqueId('follow');
    const response = await h.click('pol_action_0', 'chart project:bitcoin 365d pol', { responseId: id, messageTs: '1763800000.000200' });
    expect(response.status).toBe(200);

    const post = await h.fake.waitFor('chat.postMessage', undefined, WAIT_MS);
    expect(post.args.thread_ts).toBe('1763800000.000200');
    expect(headerOf(post.args)).toContain('Bitcoin');
    expect(validateMessage(post.args)).toEqual([]);
    const complete = await h.fake.waitFor('files.completeUploadExternal', undefined, WAIT_MS);
    expect(complete.args.thread_ts).toBe('1763800000.000200');
    expect(h.fake.uploads()[0]?.bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    // The card was a channel message: replacing or deleting "the original" would delete the card.
    expect(h.responses(id)).toEqual([]);
  });

  it('keeps the card when its chart cannot be attached, and tells the person why', async () => {
    h.fake.failNext('files.getUploadURLExternal', { error: 'missing_scope' });
    await h.core.run('bybit');
    const id = uniqueId('noscope');
    await h.command('bybit', { responseId: id });

    const post = await h.fake.waitFor('chat.postMessage', undefined, WAIT_MS);
    expect(headerOf(post.args)).toBe('Bybit');
    const note = await h.fake.waitFor('response_url', (c) => c.id === id, WAIT_MS);
    expect(note.args).toMatchObject({ response_type: 'ephemeral' });
    expect(blocksJson(note.args)).toContain('`files:write`');
    expect(h.fake.uploads()).toEqual([]);
  });

  it('posts a project section typed after its name, and another section from its button', async () => {
    await h.command('pepe security', { channel: 'CSECTION1' });
    const post = await h.fake.waitFor('chat.postMessage', (c) => c.args.channel === 'CSECTION1', WAIT_MS);
    expect(validateMessage(post.args, { maxVisibleText: 10_000, requireFallbackText: true })).toEqual([]);
    expect(headerOf(post.args)).toBe('Pepe (PEPE): Security');
    const pepe = h.sim.store.project('pepe')!;
    const json = blocksJson(post.args);
    expect(json).toContain(`*${scoreText(last(pepe.categories.security.scores))} / 100*`);
    expect(json).toContain('_(higher is better)_');
    expect(json).not.toContain('Probability of Loss:');
    for (const audit of pepe.audits) expect(json).toContain(audit.auditor);

    const buttons = (
      JSON.parse(json) as { type: string; elements?: { text: { text: string }; action_id: string; value: string }[] }[]
    ).flatMap((b) => (b.type === 'actions' ? (b.elements ?? []) : []));
    const financial = buttons.find((b) => b.text.text === 'Financial')!;
    expect(financial.value).toBe('section project:pepe financial');
    expect((await h.click(financial.action_id, financial.value, { channel: 'CSECTION1' })).status).toBe(200);
    const next = await h.fake.waitFor(
      'chat.postMessage',
      (c) => c.args.channel === 'CSECTION1' && headerOf(c.args) === 'Pepe (PEPE): Financial',
      WAIT_MS,
    );
    expect(blocksJson(next.args)).toContain(`*${scoreText(last(pepe.categories.financial.scores))} / 100*`);
    expect(blocksJson(next.args)).toContain(usdText(pepe.market.marketCap));
  });

  it('posts each of the six sections of a project with its quality score and what stands behind it', async () => {
    const aave = h.sim.store.project('aave')!;
    const reviews = aave.voice.reviews === 'none_identified' ? [] : aave.voice.reviews;
    const facts: Record<string, string[]> = {
      security: aave.audits.map((a) => a.auditor),
      financial: [usdText(aave.market.marketCap)],
      operational: [`*Commits, last 7 days*\\n${countText(aave.github.commitsCount7d)}`, aave.launchedAt],
      reputational: [],
      regulatory: [`tier ${aave.registration.jurisdictionQuality}`, aave.registration.jurisdiction],
      voice: reviews.slice(0, 1).map((r) => r.author),
    };
    const titles: Record<string, string> = { voice: 'Proof of Voice' };
    for (const [word, expected] of Object.entries(facts)) {
      const channel = `CSIX${word.slice(0, 5).toUpperCase()}`;
      await h.command(`aave ${word}`, { channel });
      const post = await h.fake.waitFor('chat.postMessage', (c) => c.args.channel === channel, WAIT_MS);
      expect(validateMessage(post.args, { maxVisibleText: 10_000, requireFallbackText: true })).toEqual([]);
      const title = titles[word] ?? word[0]!.toUpperCase() + word.slice(1);
      expect(headerOf(post.args)).toBe(`Aave (AAVE): ${title}`);
      const scores = word === 'voice' ? aave.voiceScores : aave.categories[word as keyof typeof aave.categories].scores;
      const json = blocksJson(post.args);
      expect(json).toContain(`*${scoreText(last(scores))} / 100*`);
      expect(json).toContain('_(higher is better)_');
      for (const fact of expected) expect(json).toContain(fact);
    }
  });

  it('posts the sections and dashboard of an exchange, the solvency one with its reserves chart', async () => {
    const e = h.sim.store.exchange('binance')!;
    const expected: Record<string, { title: string; facts: string[] }> = {
      transparency: {
        title: 'Transparency',
        facts: [`*${scoreText(last(e.categories.transparency.scores))} / 100*`, e.transparency.auditor ?? 'none named'],
      },
      security: {
        title: 'Security',
        facts: [`*${scoreText(last(e.categories.security.scores))} / 100*`, `yes, up to ${usdText(e.security.bugBountyMaxUsd!)}`],
      },
      solvency: {
        title: 'Solvency',
        facts: [`*${scoreText(last(e.categories.solvency.scores))} / 100*`, usdText(last(e.reserves)), usdText(last(e.liabilities))],
      },
      dashboard: { title: 'Dashboard', facts: [`*${polText(last(e.pol))}*`, `*Listed assets*\\n${countText(e.listed.length)}`] },
    };
    for (const [word, { title, facts }] of Object.entries(expected)) {
      const channel = `CEX${word.slice(0, 6).toUpperCase()}`;
      await h.command(`binance ${word}`, { channel });
      const post = await h.fake.waitFor('chat.postMessage', (c) => c.args.channel === channel, WAIT_MS);
      expect(validateMessage(post.args, { maxVisibleText: 10_000, requireFallbackText: true })).toEqual([]);
      expect(headerOf(post.args)).toBe(`Binance: ${title}`);
      const json = blocksJson(post.args);
      for (const fact of facts) expect(json).toContain(fact);
      // A section's headline is its quality score; only the dashboard leads with the PoL.
      expect(json).toContain(word === 'dashboard' ? '*Probability of Loss:*' : `*${title} quality score:*`);
    }
    const upload = await h.fake.waitFor('files.completeUploadExternal', (c) => c.args.channel_id === 'CEXSOLVEN', WAIT_MS);
    expect(JSON.stringify(upload.args)).toContain('Reserves and liabilities of Binance over 90 days');
  });

  it('posts listed assets a page at a time, with a Next page button and the whole list as CSV', async () => {
    const e = h.sim.store.exchange('binance')!;
    const listed = e.listed.map((id) => h.sim.store.data.tokens.find((t) => t.id === id)!).sort((a, b) => b.marketCap - a.marketCap);
    await h.command('binance assets', { channel: 'CASSETS01' });
    const post = await h.fake.waitFor('chat.postMessage', (c) => c.args.channel === 'CASSETS01', WAIT_MS);
    expect(validateMessage(post.args)).toEqual([]);
    const json = blocksJson(post.args);
    for (const t of listed.slice(0, 10)) expect(json).toContain(`${t.name} (${t.ticker})`);
    expect(json).toContain(polText(listed[0]!.polScore));
    expect(json).toContain(`page 1 of ${Math.ceil(listed.length / 10)} · ${listed.length} assets`);
    type Button = { type: string; action_id: string; value: string; text: { text: string } };
    const buttons = ((post.args.blocks ?? []) as { type: string; elements?: Button[] }[])
      .flatMap((b) => (b.type === 'actions' ? (b.elements ?? []) : []))
      .filter((b) => b.type === 'button');
    const next = buttons.find((b) => b.text.text === 'Next page')!;
    expect(next.value).toBe('assets exchange:binance page=2');
    await h.click(next.action_id, next.value, { channel: 'CASSETS02' });
    const second = await h.fake.waitFor('chat.postMessage', (c) => c.args.channel === 'CASSETS02', WAIT_MS);
    for (const t of listed.slice(10, 20)) expect(blocksJson(second.args)).toContain(`${t.name} (${t.ticker})`);

    const exportButton = buttons.find((b) => b.text.text === 'Export CSV')!;
    const before = h.fake.uploads().length;
    await h.click(exportButton.action_id, exportButton.value, { channel: 'CASSETS03' });
    await h.fake.waitFor('files.completeUploadExternal', (c) => c.args.channel_id === 'CASSETS03', WAIT_MS);
    const csv = h.fake
      .uploads()
      .slice(before)
      .find((u) => u.filename === 'assets-binance.csv')!;
    const [header, ...lines] = csv.bytes.toString('utf8').trim().split('\n');
    expect(header).toBe('name,ticker,categories,market_cap_usd,pol');
    expect(lines.map((l) => l.split(','))).toEqual(
      listed.map((t) => [t.name, t.ticker, t.category, String(t.marketCap), String(t.polScore)]),
    );
  });

  it('posts funds lost at exchanges with the bar chart, and exchange ratings filtered by listed tokens', async () => {
    const incidents = h.sim.store.data.lostFunds;
    await h.command('lost-funds', { channel: 'CLOSTFUND' });
    const post = await h.fake.waitFor('chat.postMessage', (c) => c.args.channel === 'CLOSTFUND', WAIT_MS);
    expect(validateMessage(post.args)).toEqual([]);
    expect(blocksJson(post.args)).toContain(usdText(incidents.reduce((s, i) => s + i.amountUsd, 0)));
    const upload = await h.fake.waitFor('files.completeUploadExternal', (c) => c.args.channel_id === 'CLOSTFUND', WAIT_MS);
    expect(JSON.stringify(upload.args)).toContain('Funds lost at exchanges by year');

    const btc = h.sim.store.data.tokens.find((t) => t.ticker === 'BTC')!;
    const listing = h.sim.store.data.exchanges.filter((x) => x.listed.includes(btc.id)).sort((a, b) => last(a.pol) - last(b.pol));
    await h.command('ratings exchanges listed_tokens=bitcoin sort=pol order=asc', { channel: 'CTOKENS01' });
    const ratings = await h.fake.waitFor('chat.postMessage', (c) => c.args.channel === 'CTOKENS01', WAIT_MS);
    const json = blocksJson(ratings.args);
    expect(json).toContain(
      `listed_tokens=BTC sort=pol order=asc · page 1 of ${Math.ceil(listing.length / 10)} · ${listing.length} exchanges`,
    );
    for (const x of listing.slice(0, 10)) expect(json).toContain(polText(last(x.pol)));

    // Hundreds of tokens: a select that asks as the person types, with the other filters kept.
    expect(validateMessage(ratings.args)).toEqual([]);
    type Block = { type: string; block_id?: string; elements?: { type: string; action_id: string }[] };
    const lookupBlock = ((ratings.args.blocks ?? []) as Block[]).find((b) => b.elements?.some((e) => e.type === 'external_select'))!;
    const select = lookupBlock.elements![0]!;
    const found = await h.lookup(select.action_id, lookupBlock.block_id!, 'ether');
    expect(found.status).toBe(200);
    const eth = h.sim.store.data.tokens.find((t) => t.ticker === 'ETH')!;
    expect(found.options[0]).toEqual({
      text: expect.objectContaining({ text: `${eth.name} (ETH)` }),
      value: 'ratings exchanges sort=pol order=asc listed_tokens=ETH',
    });
    expect(found.options.every((o) => o.value.length <= 150 && o.text.text.length <= 75)).toBe(true);
    expect((await h.lookup(select.action_id, lookupBlock.block_id!, 'zzzzqq')).options).toEqual([]);

    await h.pick(
      select.action_id,
      { text: found.options[0]!.text.text, value: found.options[0]!.value },
      { channel: 'CTOKENS01', messageTs: (ratings.response as { ts: string }).ts, type: 'external_select' },
    );
    const picked = await h.fake.waitFor(
      'chat.postMessage',
      (c) => c.args.channel === 'CTOKENS01' && c !== ratings && c.status === 200,
      WAIT_MS,
    );
    const withEth = h.sim.store.data.exchanges.filter((x) => x.listed.includes(eth.id));
    expect(blocksJson(picked.args)).toContain(
      `sort=pol order=asc listed_tokens=ETH · page 1 of ${Math.ceil(withEth.length / 10)} · ${withEth.length} exchanges`,
    );
  });

  it('posts why a PoL is what it is, with the metric chart', async () => {
    await h.command('why binance', { channel: 'CWHY00001' });
    const post = await h.fake.waitFor('chat.postMessage', (c) => c.args.channel === 'CWHY00001', WAIT_MS);
    expect(validateMessage(post.args, { maxVisibleText: 10_000, requireFallbackText: true })).toEqual([]);
    expect(headerOf(post.args)).toBe('Why this PoL: Binance');
    const json = blocksJson(post.args);
    expect(json).toContain(`*${polText(last(h.sim.store.exchange('binance')!.pol))}*`);
    expect(json).toContain('*Pushing PoL up*');
    expect(json).toContain('Liabilities coverage');
  });

  it('posts a chart over any window of dates typed after the name', async () => {
    await h.command('chart bitcoin from 2026-03-01 to 2026-06-30', { channel: 'CDATES001' });
    const post = await h.fake.waitFor('chat.postMessage', (c) => c.args.channel === 'CDATES001', WAIT_MS);
    expect(headerOf(post.args)).toBe('Bitcoin: Probability of Loss (lower is safer), 2026-03-01 to 2026-06-30');
  });

  it('posts filtered ratings, with a Next page button that runs the same filters', async () => {
    await h.command('ratings projects categories=DeFi sort=pol order=asc', { channel: 'CRATINGS1' });
    const post = await h.fake.waitFor('chat.postMessage', (c) => c.args.channel === 'CRATINGS1', WAIT_MS);
    expect(validateMessage(post.args)).toEqual([]);
    const json = blocksJson(post.args);
    const defi = h.sim.store.data.projects.filter((p) => p.category === 'DeFi').sort((a, b) => last(a.pol) - last(b.pol));
    expect(json).toContain(polText(last(defi[0]!.pol)));
    expect(json).toContain('"value":"ratings projects categories=DeFi sort=pol order=asc page=2"');

    // Export: the same table, and the whole list uploaded as a CSV file to the channel.
    expect(json).toContain('"value":"ratings projects categories=DeFi sort=pol order=asc export=csv"');
    const before = h.fake.uploads().length;
    await h.command('ratings projects categories=DeFi sort=pol order=asc export=csv', { channel: 'CRATINGS1' });
    const complete = await h.fake.waitFor('files.completeUploadExternal', (c) => c.args.channel_id === 'CRATINGS1', WAIT_MS);
    expect(JSON.stringify(complete.args)).toContain('Ratings of projects');
    const csv = h.fake
      .uploads()
      .slice(before)
      .find((u) => u.filename === 'ratings-projects.csv')!;
    const lines = csv.bytes.toString('utf8').trim().split('\n');
    expect(lines[0]).toBe('rank,slug,name,ticker,pol,rating,market_cap_usd');
    expect(lines.slice(1).map((l) => l.split(',')[1])).toEqual(defi.map((p) => p.slug));
  });

  it('offers the ratings filters as select menus built from the service, and a pick posts the list it names', async () => {
    await h.command('ratings projects categories=DeFi sort=pol order=asc', { channel: 'CMENUS001' });
    const post = await h.fake.waitFor('chat.postMessage', (c) => c.args.channel === 'CMENUS001', WAIT_MS);
    expect(validateMessage(post.args)).toEqual([]);
    type Option = { text: { text: string }; value: string };
    type Select = { type: string; action_id: string; placeholder: { text: string }; options: Option[]; initial_option?: Option };
    const selects = ((post.args.blocks ?? []) as { type: string; elements?: Select[] }[])
      .flatMap((b) => (b.type === 'actions' ? (b.elements ?? []) : []))
      .filter((e) => e.type === 'static_select');
    // Every filter the service lists, and the sort orders; the ones in force are shown picked.
    expect(selects.map((s) => s.placeholder.text)).toEqual(['Categories', 'Market cap', 'Chains', 'Compliance', 'Sort by']);
    const [categories, marketCap, chains, , sort] = selects as [Select, Select, Select, Select, Select];
    expect(categories.options.map((o) => o.text.text)).toEqual([
      'Any',
      'AI',
      'DeFi',
      'Exchange token',
      'Gaming',
      'Identity',
      'Infrastructure',
      'Layer 0',
      'Layer 1',
      'Layer 2',
      'Liquid staking',
      'Media',
      'Meme',
      'Modular',
      'Oracle',
      'Payments',
      'Privacy',
      'Stablecoin',
      'Storage',
      'Supply chain',
    ]);
    expect(categories.initial_option?.text.text).toBe('DeFi');
    expect(chains.options).toHaveLength(45);
    expect(chains.options.find((o) => o.text.text === 'BNB Chain')?.value).toBe(
      'ratings projects categories=DeFi sort=pol order=asc chains="BNB Chain"',
    );
    expect(sort.initial_option?.text.text).toBe('PoL, lowest first');

    const large = marketCap.options.find((o) => o.text.text === 'large')!;
    expect(large.value).toBe('ratings projects categories=DeFi sort=pol order=asc market_cap=large');
    const ts = (post.response as { ts: string }).ts;
    expect(
      (await h.pick(marketCap.action_id, { text: large.text.text, value: large.value }, { channel: 'CMENUS001', messageTs: ts })).status,
    ).toBe(200);
    const picked = await h.fake.waitFor(
      'chat.postMessage',
      (c) => c.args.channel === 'CMENUS001' && c !== post && c.status === 200,
      WAIT_MS,
    );
    const expected = h.sim.store.data.projects
      .filter((p) => p.category === 'DeFi' && p.market.marketCap >= 10e9)
      .sort((a, b) => last(a.pol) - last(b.pol));
    expect(expected.length).toBeGreaterThan(0);
    const json = blocksJson(picked.args);
    for (const p of expected.slice(0, 10)) expect(json).toContain(polText(last(p.pol)));
    expect(json).toContain(`market_cap=large · page 1 of ${Math.ceil(expected.length / 10)} · ${expected.length} projects`);
    // The answer goes in the thread of the list it came from.
    expect(picked.args.thread_ts).toBe(ts);
  });

  it('posts tables (compare) to the channel with a button per entity', async () => {
    await h.command('compare binance, kraken, okx');
    const post = await h.fake.waitFor('chat.postMessage', undefined, WAIT_MS);
    expect(validateMessage(post.args)).toEqual([]);
    const json = blocksJson(post.args);
    expect(json).toContain(polText(last(h.sim.store.exchange('okx')!.pol)));
    // A table that fits Slack's table block is one: its header, then a row per name.
    const cells = tableRowsOf(post.args.blocks)!.flat();
    expect(cells).toEqual(expect.arrayContaining(['Binance', 'Kraken', 'OKX', polText(last(h.sim.store.exchange('okx')!.pol))]));
    expect(json).toContain('"value":"exchange:okx"');
  });
});

describe('ambiguous and unknown names', () => {
  it('offers a button per candidate, posts nothing, and a click posts only the chosen entity', async () => {
    const id = uniqueId('choice');
    const response = await h.command('shiba', { responseId: id });
    const choice = await ephemeralAnswer(h, response, id);

    expect(validateMessage(choice)).toEqual([]);
    const buttons = JSON.parse(blocksJson(choice)).flatMap((b: { accessory?: { action_id: string; value: string } }) =>
      b.accessory ? [b.accessory] : [],
    );
    expect(buttons.map((b: { value: string }) => b.value).sort()).toEqual(['project:shiba-inu', 'project:shibaswap']);
    expect(new Set(buttons.map((b: { action_id: string }) => b.action_id)).size).toBe(2);
    expect(h.fake.calls('chat.postMessage')).toEqual([]);

    const chosen = buttons.find((b: { value: string }) => b.value === 'project:shibaswap');
    const clickId = uniqueId('click');
    const click = await h.click(chosen.action_id, chosen.value, { responseId: clickId, ephemeral: true });
    expect(click.status).toBe(200);

    const post = await h.fake.waitFor('chat.postMessage', undefined, WAIT_MS);
    expect(headerOf(post.args)).toBe('ShibaSwap (BONE)');
    expect(blocksJson(post.args)).toContain(polText(last(h.sim.store.project('shibaswap')!.pol)));
    // The choice message goes away once answered.
    await h.fake.waitFor('response_url', (c) => c.id === clickId && c.args.delete_original === true, WAIT_MS);
    await h.fake.waitFor('files.completeUploadExternal', undefined, WAIT_MS);
    const everything = h.fake.calls('chat.postMessage').map((c) => headerOf(c.args));
    expect(everything).toEqual(['ShibaSwap (BONE)']);
  });

  it('turns a clicked choice into "Looking up…" while a slow upstream answers', async () => {
    await h.core.run('search curve');
    h.sim.faults.set({ latencyMs: 5_000 });
    const id = uniqueId('slow-click');
    const started = performance.now();
    await h.click('pol_choice_0', 'project:curve-dao', { ephemeral: true, responseId: id });

    const progress = await h.fake.waitFor('response_url', (c) => c.id === id, 3_000);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(progress.args).toMatchObject({ replace_original: true, text: expect.stringContaining('Looking up “project:curve-dao”') });
    const answer = await h.fake.waitFor('response_url', (c) => c.id === id && c !== progress, 15_000);
    h.sim.faults.reset();
    // Either the upstream deadline passed (a private error replaces the progress note) or the card made it.
    expect(answer.args.replace_original === true || answer.args.delete_original === true).toBe(true);
  });

  it('answers a double click on a choice once', async () => {
    await h.core.run('project:lido-staked-ether');
    const clicks = await Promise.all([
      h.click('pol_choice_1', 'project:lido-staked-ether', { ephemeral: true, messageTs: '1763800000.000900' }),
      h.click('pol_choice_1', 'project:lido-staked-ether', { ephemeral: true, messageTs: '1763800000.000900' }),
    ]);
    expect(clicks.map((c) => c.status)).toEqual([200, 200]);
    await h.fake.waitFor('files.completeUploadExternal', undefined, WAIT_MS);
    await quiesce(h);
    expect(h.fake.calls('chat.postMessage').map((c) => headerOf(c.args))).toEqual(['Lido Staked Ether (STETH)']);
  });

  it('answers an unknown name privately with a hint and no buttons', async () => {
    const id = uniqueId('unknown');
    const response = await h.command('qqqzzzxxx', { responseId: id });
    const answer = await ephemeralAnswer(h, response, id);

    expect(blocksJson(answer)).toContain('/pol search');
    expect(blocksJson(answer)).not.toContain('"button"');
    expect(h.fake.calls('chat.postMessage')).toEqual([]);
  });
});

describe('request signatures', () => {
  const now = () => Math.floor(Date.now() / 1000);

  it('refuses a forged signature and timestamps 6 minutes old or ahead with 401, before any upstream call', async () => {
    const before = h.sim.counter.total;
    const forged = await h.command('ethereum', { headers: { 'x-slack-signature': `v0=${'0'.repeat(64)}` } });
    const wrongSecret = await h.command('ethereum', { headers: { 'x-slack-signature': 'v0=deadbeef' } });
    const stale = await h.command('ethereum', { timestampSec: now() - 6 * 60 });
    const future = await h.command('ethereum', { timestampSec: now() + 6 * 60 });
    const garbage = await h.command('ethereum', { headers: { 'x-slack-request-timestamp': 'soon' } });

    for (const r of [forged, wrongSecret, stale, future, garbage]) {
      expect(r.status).toBe(401);
      expect(r.body).toBe('');
    }
    // Give any stray handler time to act before concluding nothing happened.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.sim.counter.total).toBe(before);
    expect(h.fake.calls()).toEqual([]);
    expect(h.logs.lines.some((l) => l.includes('outside the 5-minute window'))).toBe(true);
  });

  it('accepts a correctly signed request whose clock is within 5 minutes either way', async () => {
    const [aheadId, behindId] = [uniqueId('ahead'), uniqueId('behind')];
    const ahead = await h.command('help', { timestampSec: now() + 4 * 60, responseId: aheadId });
    const behind = await h.command('help', { timestampSec: now() - 4 * 60, responseId: behindId });
    expect(ahead.status).toBe(200);
    expect(behind.status).toBe(200);
    // Both were taken as commands: each got its answer.
    expect(blocksJson(await ephemeralAnswer(h, ahead, aheadId))).toContain('/pol compare');
    expect(blocksJson(await ephemeralAnswer(h, behind, behindId))).toContain('/pol compare');
  });

  it('refuses a signature made with another secret even with a fresh timestamp', async () => {
    const { postToBolt, slashCommandBody } = await import('../../fakes/slack/index.js');
    const body = slashCommandBody({ text: 'bitcoin', response_url: h.fake.responseUrl() });
    const response = await postToBolt(h.endpoint, body, `${SIGNING_SECRET}-not`);
    expect(response.status).toBe(401);
  });
});

describe('channels the bot is not in', () => {
  it('delivers the card through response_url without the file and hints how to invite the bot (not_in_channel)', async () => {
    h.fake.failChannel('C0NOTMEMB1', 'not_in_channel');
    const id = uniqueId('nic');
    await h.command('coinbase-exchange', { channel: 'C0NOTMEMB1', responseId: id });

    const card = await h.fake.waitFor('response_url', (c) => c.id === id && c.args.response_type === 'in_channel', WAIT_MS);
    expect(headerOf(card.args)).toBe(h.sim.store.exchange('coinbase-exchange')!.name);
    expect(card.args.replace_original).toBe(false);
    expect(validateMessage(card.args)).toEqual([]);
    const hint = await h.fake.waitFor('response_url', (c) => c.id === id && c.args.response_type === 'ephemeral', WAIT_MS);
    expect(blocksJson(hint.args)).toContain('/invite <@U0FAKEBOT1>');
    expect(h.fake.uploads()).toEqual([]);
    expect(h.fake.calls('files.getUploadURLExternal')).toEqual([]);
  });

  it('explains private channels and DMs on channel_not_found', async () => {
    h.fake.failChannel('G0PRIVATE1', 'channel_not_found');
    const id = uniqueId('cnf');
    await h.command('kraken', { channel: 'G0PRIVATE1', responseId: id });

    await h.fake.waitFor('response_url', (c) => c.id === id && c.args.response_type === 'in_channel', WAIT_MS);
    const hint = await h.fake.waitFor('response_url', (c) => c.id === id && c.args.response_type === 'ephemeral', WAIT_MS);
    expect(blocksJson(hint.args)).toContain('Add apps');
    expect(h.fake.uploads()).toEqual([]);
  });
});

describe('Slack rate limits', () => {
  it('retries a 429 after Retry-After and delivers the card', async () => {
    h.fake.rateLimitNext('chat.postMessage', { retryAfterSec: 1 });
    await h.core.run('okx');
    await h.command('okx');

    const ok = await h.fake.waitFor('chat.postMessage', (c) => c.status === 200, WAIT_MS);
    const attempts = h.fake.calls('chat.postMessage');
    expect(attempts.map((c) => c.status)).toEqual([429, 200]);
    expect(ok.at.getTime() - attempts[0]!.at.getTime()).toBeGreaterThanOrEqual(1_000 - TIMER_SLACK_MS);
    expect(headerOf(ok.args)).toBe('OKX');
    expect(h.logs.lines.some((l) => l.includes('rate limiting'))).toBe(true);
  });
});

describe('escaping upstream text', () => {
  it('sends a red flag holding <!channel>, a user mention and a link escaped, never live', async () => {
    const hostile = '<!channel> <@U123> <https://evil.example|click>';
    h.sim.store.addRedFlag('pepe', 'mm', hostile);
    h.core.upstream.source.cache.clear();

    await h.command('pepe');
    const post = await h.fake.waitFor('chat.postMessage', undefined, WAIT_MS);
    await h.command('flags pepe');
    const flags = await h.fake.waitFor('chat.postMessage', (c) => headerOf(c.args)?.includes('red flags') === true, WAIT_MS);

    for (const args of [post.args, flags.args]) {
      const json = blocksJson(args);
      expect(json).toContain('&lt;!channel&gt; &lt;@U123&gt; &lt;https://evil.example|click&gt;');
      const { mrkdwn, plain } = messageTexts(args);
      for (const text of [...mrkdwn, ...plain]) {
        expect(text).not.toContain('<');
        expect(text).not.toContain('>');
      }
    }
    // The wire format too: nothing on the way to Slack carries the live markup.
    const wire = h.fake.rawPayloads().map(decodeWire);
    expect(wire.some((raw) => raw.includes('&lt;!channel&gt;'))).toBe(true);
    expect(wire.some((raw) => raw.includes('<!channel>') || raw.includes('<@U123>') || raw.includes('<https://evil'))).toBe(false);
  });

  it('neutralises markup in entity names shown in headers and buttons', async () => {
    h.sim.store.rename('exchange', 'bitfinex', '<!here> Bitfinex @everyone\u202e');
    h.core.upstream.source.cache.clear();
    await h.command('exchange bitfinex');

    const post = await h.fake.waitFor('chat.postMessage', undefined, WAIT_MS);
    const header = headerOf(post.args)!;
    expect(header).not.toMatch(/[<>\u202e]/);
    expect(header).toContain('Bitfinex');
    expect(header).not.toMatch(/@everyone/);
    expect(String(post.args.text)).not.toMatch(/<!here>|@everyone/);
  });
});

describe('errors', () => {
  it('keeps upstream failures ephemeral, short and free of URLs, keys and stack traces', async () => {
    h.sim.faults.set({ errorRate: 1 });
    const id = uniqueId('err');
    const response = await h.command('bitget', { responseId: id });
    const answer = await ephemeralAnswer(h, response, id, 15_000);

    const text = `${String(answer.text)} ${blocksJson(answer)}`;
    expect(text).toMatch(/:warning:/);
    expect(text.length).toBeLessThan(800);
    expect(text).not.toMatch(/127\.0\.0\.1|https?:\/\/|svc_|\n\s+at |Error:|stack/i);
    expect(h.fake.calls('chat.postMessage')).toEqual([]);
  });

  it('answers a usage error privately', async () => {
    const id = uniqueId('usage');
    const answer = await ephemeralAnswer(h, await h.command('compare', { responseId: id }), id);
    expect(blocksJson(answer)).toContain(':warning:');
    expect(h.fake.calls('chat.postMessage')).toEqual([]);
  });
});

describe('secrets', () => {
  it('never sends the API key to Slack nor writes it, the bot token or the signing secret to the log', async () => {
    const apiKey = h.sim.apiKey;
    // An upstream failure, a choice, a click and a card with its chart: every path that talks to Slack.
    h.sim.faults.set({ errorRate: 1 });
    const failedId = uniqueId('secret-err');
    await ephemeralAnswer(h, await h.command('huobi', { responseId: failedId }), failedId, 15_000);
    h.sim.faults.reset();
    // The failures opened the cache's circuit breaker; the harness cools it down in 50 ms.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const choiceId = uniqueId('secret-choice');
    await ephemeralAnswer(h, await h.command('lido', { responseId: choiceId }), choiceId);
    await h.click('pol_choice_0', 'project:lido-dao', { ephemeral: true });
    await h.fake.waitFor('chat.postMessage', (c) => headerOf(c.args)?.startsWith('Lido DAO') === true, WAIT_MS);
    await h.command('bitcoin');
    await h.fake.waitFor('files.completeUploadExternal', (c) => /bitcoin/i.test(JSON.stringify(c.args)), WAIT_MS);

    expect(h.fake.calls().length).toBeGreaterThan(3);
    const wire = h.fake.rawPayloads().join('\n');
    expect(wire).not.toContain(apiKey);
    expect(decodeWire(wire)).not.toContain(apiKey);
    for (const call of h.fake.calls()) expect(JSON.stringify(call.args)).not.toContain(apiKey);

    const logs = h.logs.lines.join('\n');
    expect(h.logs.lines.length).toBeGreaterThan(5);
    // Bolt's and the Web API client's own debug lines come through the same logger.
    expect(h.logs.lines.some((l) => l.includes('"component":"slack-sdk"'))).toBe(true);
    for (const secret of [apiKey, h.fake.botToken, SIGNING_SECRET]) expect(logs).not.toContain(secret);
  });
});

describe('postReply', () => {
  it('posts any Reply into a channel by id, as one message with its chart inside, for scheduled digests', async () => {
    const { reply } = await h.core.run('exchange gemini');
    const posted = await h.slack.postReply('C0DIGEST01', reply);

    expect(posted.ts).toMatch(/^\d+\.\d+$/);
    const post = h.fake.calls('chat.postMessage')[0]!;
    expect(post.args.channel).toBe('C0DIGEST01');
    expect(headerOf(post.args)).toBe('Gemini');
    // The chart was uploaded first, shared nowhere, and the message shows it.
    const [complete] = h.fake.calls('files.completeUploadExternal');
    expect(complete?.args.channel_id).toBeUndefined();
    const [upload] = h.fake.uploads();
    expect(upload?.bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect((post.args.blocks as { type: string }[]).filter((b) => b.type === 'image')).toEqual([
      { type: 'image', slack_file: { id: upload!.file_id }, alt_text: expect.stringContaining('Gemini') },
    ]);
    expect(h.fake.files().find((f) => f.id === upload!.file_id)?.channels).toEqual([]);

    const threaded = await h.slack.postReply(
      'C0DIGEST01',
      { kind: 'text', title: 'Digest', text: 'Two changes since yesterday.' },
      { threadTs: posted.ts! },
    );
    expect(threaded.ts).toBeDefined();
    expect(h.fake.calls('chat.postMessage')[1]?.args.thread_ts).toBe(posted.ts);
  });

  it('rejects with Slack error code when the bot is not in the channel', async () => {
    h.fake.failChannel('C0DIGEST02', 'not_in_channel');
    const failure = await h.slack.postReply('C0DIGEST02', { kind: 'text', text: 'hello' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(SlackDeliveryError);
    expect(failure).toMatchObject({ code: 'not_in_channel', channel: 'C0DIGEST02' });
  });
});

describe('custom routes', () => {
  it('serves extra routes on the same HTTP server as /slack/events', async () => {
    const base = h.endpoint.replace('/slack/events', '');
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.text()).toBe('ok');
    expect((await fetch(`${base}/nope`)).status).toBe(404);
  });
});
