import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CategorySeries, SimEntity, SimExchange, SimProject } from '../../../src/sim/data/model.js';
import { EXCHANGE_CATEGORIES, PROJECT_CATEGORIES, ratingForScore } from '../../../src/sim/data/scales.js';
import { startSimulator, type Simulator } from '../../../src/sim/server.js';
import * as entityViews from '../../../src/sim/views/entity.js';
import * as projectViews from '../../../src/sim/views/projects.js';

/** The 23 tools of the tool document, written out from the document itself. */
const DOCUMENTED_TOOLS = [
  'check_health',
  'resolve_project_slug',
  'get_projects_list',
  'get_project_age',
  'get_project_github_activity',
  'get_project_team_track_record',
  'get_project_certifications',
  'get_project_red_flags',
  'get_project_social_fraud',
  'get_project_public_registration',
  'get_project_proof_of_voice_pros_and_cons',
  'get_project_proof_of_voice_expert_reviews',
  'get_project_market_data',
  'get_project_security_score',
  'get_project_financial_score',
  'get_project_operational_score',
  'get_project_reputational_score',
  'get_project_regulatory_score',
  'get_project_categories_scores_dynamic',
  'get_exchange_security_score',
  'get_exchange_transparency_score',
  'get_exchange_solvency_score',
  'get_exchange_categories_scores_dynamic',
];

const PROJECT_SLUG_TOOLS = DOCUMENTED_TOOLS.filter((n) => n.startsWith('get_project_'));
const EXCHANGE_SLUG_TOOLS = DOCUMENTED_TOOLS.filter((n) => n.startsWith('get_exchange_'));

interface ToolResult {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, any>;
  isError?: boolean;
}

let sim: Simulator;
let client: Client;

function connect(headers: Record<string, string>): Promise<Client> {
  const c = new Client({ name: 'sim-mcp-test', version: '1.0.0' });
  return c.connect(new StreamableHTTPClientTransport(new URL(sim.mcpUrl), { requestInit: { headers } })).then(() => c);
}

beforeAll(async () => {
  sim = await startSimulator({ seed: 42, asOf: new Date('2026-11-22T00:00:00Z') });
  client = await connect({ 'x-api-key': sim.apiKey });
});

afterAll(async () => {
  await client?.close();
  await sim?.close();
});

async function call(name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

const textOf = (r: ToolResult) => r.content.map((c) => c.text ?? '').join('\n');

/** A successful result: human text and structured body, both marked as simulated. */
async function ok(name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const r = await call(name, args);
  expect(r.isError, `${name} ${textOf(r)}`).toBeFalsy();
  expect(r.content[0]?.type).toBe('text');
  expect(textOf(r)).toContain('(simulated data)');
  expect(r.structuredContent?.simulated).toBe(true);
  return r.structuredContent!;
}

const project = (slug: string) => sim.store.project(slug)!;
const exchange = (slug: string) => sim.store.exchange(slug)!;

/** Independent truth: the stored series at the latest day, rated by the published scale. */
function expectedScore(e: SimEntity, category: string, i = sim.store.lastIndex) {
  const series = (e.categories as Record<string, CategorySeries>)[category]!;
  const score = series.scores[i]!;
  return { score, rating: ratingForScore(score), confidence: series.confidence };
}

function expectedPoints(e: SimEntity, categories: readonly string[], days: number | undefined) {
  const [start, end] = sim.store.windowIndices(days);
  const points = [];
  for (let i = start; i < end; i++) {
    const point: Record<string, unknown> = { timestamp: sim.store.data.days[i]! };
    for (const c of categories) point[c] = expectedScore(e, c, i);
    points.push(point);
  }
  return points;
}

async function rest(path: string): Promise<any> {
  const res = await fetch(`${sim.url}${path}`, { headers: { 'x-api-key': sim.apiKey } });
  expect(res.status, path).toBe(200);
  return res.json();
}

describe('tool list', () => {
  it('lists exactly the 23 documented tools, all read-only', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...DOCUMENTED_TOOLS].sort());
    for (const t of tools) expect(t.annotations?.readOnlyHint, t.name).toBe(true);
  });

  it('declares the documented parameters', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of [...PROJECT_SLUG_TOOLS, ...EXCHANGE_SLUG_TOOLS]) {
      expect(byName.get(name)!.inputSchema.required, name).toEqual(['slug']);
    }
    for (const name of ['get_project_categories_scores_dynamic', 'get_exchange_categories_scores_dynamic']) {
      expect(Object.keys(byName.get(name)!.inputSchema.properties ?? {}).sort()).toEqual(['days', 'slug']);
    }
    expect(byName.get('resolve_project_slug')!.inputSchema.required).toEqual(['query']);
    expect(byName.get('check_health')!.inputSchema.required ?? []).toEqual([]);
    expect(byName.get('get_projects_list')!.inputSchema.required ?? []).toEqual([]);
  });

  it('names the server', () => {
    expect(client.getServerVersion()?.name).toBe('polbot-upstream-simulator');
  });
});

describe('general tools', () => {
  it('check_health confirms in text, and fails while health is failing', async () => {
    const r = await call('check_health');
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toMatch(/healthy/);
    expect(textOf(r)).toContain('(simulated data)');
    sim.faults.set({ healthFailing: true });
    try {
      const failing = await call('check_health');
      expect(failing.isError).toBe(true);
      expect(textOf(failing)).toMatch(/unhealthy/);
    } finally {
      sim.faults.set({ healthFailing: false });
    }
  });

  it('get_projects_list returns every project by name and slug', async () => {
    const body = await ok('get_projects_list');
    expect(body.projects).toEqual(sim.store.data.projects.map((p) => ({ name: p.name, slug: p.slug })));
    expect(body.totalProjects).toBe(sim.store.data.projects.length);
  });
});

describe('resolve_project_slug', () => {
  const resolved: [string, string][] = [
    ['Bitcoin', 'bitcoin'],
    ['creme finance', 'creme-finance'],
    ['Crème Finance', 'creme-finance'],
    ['  CRÈME-finance!! ', 'creme-finance'],
    ['eth', 'ethereum'],
    ['lido-dao', 'lido-dao'],
  ];
  it.each(resolved)('%j resolves to %s', async (query, slug) => {
    const body = await ok('resolve_project_slug', { query });
    expect(body).toMatchObject({ status: 'resolved', entityType: 'project', query, resolvedSlug: slug, resolvedName: project(slug).name });
    expect(body.matches).toEqual([{ slug, name: project(slug).name, ticker: project(slug).ticker }]);
  });

  const ambiguous: [string, string[]][] = [
    ['shiba', ['shiba-inu', 'shibaswap']],
    ['lido', ['lido-dao', 'lido-staked-ether']],
  ];
  it.each(ambiguous)('%j is ambiguous between %j', async (query, slugs) => {
    const body = await ok('resolve_project_slug', { query });
    expect(body).toMatchObject({ status: 'ambiguous', entityType: 'project', query });
    expect(body.resolvedSlug).toBeUndefined();
    expect(body.matches.map((m: any) => m.slug).sort()).toEqual(slugs);
    for (const m of body.matches) expect(m).toEqual({ slug: m.slug, name: project(m.slug).name, ticker: project(m.slug).ticker });
  });

  it('never auto-picks a single partial or fuzzy match', async () => {
    for (const query of ['etherium', 'shiba in']) {
      const body = await ok('resolve_project_slug', { query });
      expect(body.status, query).toBe('ambiguous');
      expect(body.matches.length, query).toBe(1);
      expect(body.resolvedSlug, query).toBeUndefined();
    }
  });

  it('answers not_found with no matches', async () => {
    for (const query of ['no such coin zzz', '', '!!!']) {
      const body = await ok('resolve_project_slug', { query });
      expect(body).toEqual({ status: 'not_found', entityType: 'project', query, matches: [], simulated: true });
    }
  });
});

describe('project tools', () => {
  // Chosen for their traits: clean, flagged, jurisdiction not returned or empty, empty Proof of Voice.
  const SLUGS = ['bitcoin', 'pepe', 'monero', 'tezos', 'fantom', 'creme-finance'];

  it.each(SLUGS)('return the stored fields for %s', async (slug) => {
    const p: SimProject = project(slug);

    expect(await ok('get_project_age', { slug })).toMatchObject({
      projectLaunchedAt: p.launchedAt,
      protocolLaunchedAt: p.protocolLaunchedAt,
    });

    const gh = await ok('get_project_github_activity', { slug });
    expect(gh.heatmap).toEqual(p.github.heatmap);
    expect(gh.heatmap).toHaveLength(52);
    expect(gh.commitsCount7d).toBe(p.github.heatmap[51]!.reduce((a, b) => a + b, 0));

    expect(await ok('get_project_team_track_record', { slug })).toMatchObject({
      isEducationRelevant: p.team.isEducationRelevant,
      isWorkExperienceRelevant: p.team.isWorkExperienceRelevant,
      isBusinessExperienceRelevant: p.team.isBusinessExperienceRelevant,
    });

    expect(await ok('get_project_certifications', { slug })).toMatchObject({
      isIso27001Present: p.certifications.isIso27001Present,
      isCcssPresent: p.certifications.isCcssPresent,
      ccssLevel: p.certifications.ccssLevel,
      isSoc2Present: p.certifications.isSoc2Present,
    });

    const flags = await ok('get_project_red_flags', { slug });
    expect(flags.mmRedFlags).toEqual(p.redFlags.mm);
    expect(flags.investorRedFlags).toEqual(p.redFlags.investor);

    expect((await ok('get_project_social_fraud', { slug })).social).toEqual(p.social);

    const reg = await ok('get_project_public_registration', { slug });
    expect(reg.isPublicRegistrationPresent).toBe(p.registration.isPublicRegistrationPresent);
    expect(reg.jurisdictionQuality).toBe(p.registration.jurisdictionQuality);

    const voice = await ok('get_project_proof_of_voice_pros_and_cons', { slug });
    expect(voice.pros).toEqual(p.voice.pros);
    expect(voice.cons).toEqual(p.voice.cons);

    const reviews = await ok('get_project_proof_of_voice_expert_reviews', { slug });
    expect(reviews.reviews).toEqual(p.voice.reviews);

    const market = await ok('get_project_market_data', { slug });
    expect(market.price).toBe(p.market.price);
    expect(market.marketCap).toBe(p.market.marketCap);
  });

  it('keeps the upstream special values as stored', async () => {
    expect((await ok('get_project_public_registration', { slug: 'monero' })).jurisdictionQuality).toBe('not_returned');
    expect((await ok('get_project_public_registration', { slug: 'tezos' })).jurisdictionQuality).toBe('');
    const tier = (await ok('get_project_public_registration', { slug: 'bitcoin' })).jurisdictionQuality;
    expect([1, 2, 3, 4]).toContain(tier);
    expect(await ok('get_project_red_flags', { slug: 'bitcoin' })).toMatchObject({
      mmRedFlags: 'none_identified',
      investorRedFlags: 'none_identified',
    });
    expect(await ok('get_project_proof_of_voice_pros_and_cons', { slug: 'fantom' })).toMatchObject({
      pros: 'none_identified',
      cons: 'none_identified',
    });
    expect((await ok('get_project_proof_of_voice_expert_reviews', { slug: 'fantom' })).reviews).toBe('none_identified');
    const reviews = (await ok('get_project_proof_of_voice_expert_reviews', { slug: 'bitcoin' })).reviews;
    expect(reviews.length).toBeGreaterThan(0);
    for (const r of reviews) expect(Object.keys(r).sort()).toEqual(['author', 'content', 'publishedAt']);
  });

  it('names the findings in the text, so a conversation can quote them', async () => {
    const r = await call('get_project_red_flags', { slug: 'pepe' });
    const stored = project('pepe').redFlags.mm;
    expect(Array.isArray(stored)).toBe(true);
    for (const flag of stored as string[]) expect(textOf(r)).toContain(flag);
  });

  it('agree with the REST section bodies', async () => {
    const slug = 'shiba-inu';
    const p = project(slug);
    const operational = await rest(`/projects_data/v1/${slug}/operational`);
    expect(await ok('get_project_age', { slug })).toMatchObject({
      projectLaunchedAt: operational.projectLaunchedAt,
      protocolLaunchedAt: operational.protocolLaunchedAt,
    });
    const reputational = await rest(`/projects_data/v1/${slug}/reputational`);
    expect((await ok('get_project_social_fraud', { slug })).social).toEqual(reputational.social);
    const voice = await rest(`/projects_data/v1/${slug}/proof_of_voice`);
    expect((await ok('get_project_proof_of_voice_expert_reviews', { slug })).reviews).toEqual(voice.reviews);
    const record = await rest(`/projects_data/v1/${slug}`);
    expect((await ok('get_project_market_data', { slug })).marketCap).toBe(record.marketData.marketCap);
    expect(projectViews.record(sim.store, p).marketData.price).toBe((await ok('get_project_market_data', { slug })).price);
  });
});

describe('score tools', () => {
  it('use the documented envelope verbatim (project)', async () => {
    const body = await ok('get_project_security_score', { slug: 'bitcoin' });
    expect(body).toEqual({
      status: 'ok',
      entityType: 'project',
      metric: 'security_score',
      requestedSlug: 'bitcoin',
      resolvedSlug: 'bitcoin',
      scoreType: 'category_quality',
      scoreDirection: 'higher_is_better',
      interpretationHint: expect.any(String),
      score: expectedScore(project('bitcoin'), 'security'),
      simulated: true,
    });
    expect(body.interpretationHint).toMatch(/category quality score/);
    expect(body.interpretationHint).toMatch(/higher is better/);
    expect(body.interpretationHint).toMatch(/not the overall (Probability of Loss|PoL)/);
  });

  it('use the documented envelope verbatim (exchange)', async () => {
    for (const category of EXCHANGE_CATEGORIES) {
      const body = await ok(`get_exchange_${category}_score`, { slug: 'kraken' });
      expect(body).toMatchObject({
        status: 'ok',
        entityType: 'exchange',
        metric: `${category}_score`,
        requestedSlug: 'kraken',
        resolvedSlug: 'kraken',
        scoreType: 'category_quality',
        scoreDirection: 'higher_is_better',
        score: expectedScore(exchange('kraken'), category),
      });
      expect(['Exceptional', 'High', 'Moderate', 'Low']).toContain(body.score.confidence);
      expect(body.score.rating).toMatch(/^(AAA|AA|A|BBB|BB|B|CCC|CC|C|D)$/);
    }
  });

  it('cover the edge scores 100 and 0', async () => {
    expect((await ok('get_project_financial_score', { slug: 'ethereum' })).score).toEqual(expectedScore(project('ethereum'), 'financial'));
    expect((await ok('get_project_financial_score', { slug: 'ethereum' })).score.score).toBe(100);
    expect((await ok('get_project_regulatory_score', { slug: 'terra-classic' })).score.score).toBe(0);
  });

  it('follow a store change at once (no caching between REST and tools)', async () => {
    const slug = 'solana';
    const original = project(slug).categories.operational.scores[sim.store.lastIndex]!;
    sim.store.setCategoryScore('project', slug, 'operational', 12.3);
    try {
      const body = await ok('get_project_operational_score', { slug });
      expect(body.score).toEqual({
        score: 12.3,
        rating: ratingForScore(12.3),
        confidence: project(slug).categories.operational.confidence,
      });
      const restBody = await rest(`/projects_data/v1/${slug}/pol/by_category`);
      expect(restBody.categories.find((c: any) => c.category === 'operational').score).toEqual(body.score);
    } finally {
      sim.store.setCategoryScore('project', slug, 'operational', original);
    }
  });

  it('dynamic tools return the stored daily points, the whole history when days is omitted', async () => {
    const p = project('aave');
    const e = exchange('binance');
    const p30 = await ok('get_project_categories_scores_dynamic', { slug: 'aave', days: 30 });
    expect(p30).toMatchObject({
      status: 'ok',
      entityType: 'project',
      resolvedSlug: 'aave',
      scoreType: 'category_quality',
      scoreDirection: 'higher_is_better',
    });
    expect(p30.points).toEqual(expectedPoints(p, PROJECT_CATEGORIES, 30));
    expect(p30.points).toHaveLength(31);
    const pAll = await ok('get_project_categories_scores_dynamic', { slug: 'aave' });
    expect(pAll.points).toEqual(expectedPoints(p, PROJECT_CATEGORIES, undefined));
    expect(pAll.points).toHaveLength(sim.store.data.days.length);
    const e7 = await ok('get_exchange_categories_scores_dynamic', { slug: 'binance', days: 7 });
    expect(e7).toMatchObject({ status: 'ok', entityType: 'exchange', resolvedSlug: 'binance' });
    expect(e7.points).toEqual(expectedPoints(e, EXCHANGE_CATEGORIES, 7));
    expect(Object.keys(e7.points[0]).sort()).toEqual(['solvency', 'security', 'timestamp', 'transparency'].sort());
  });

  it('dynamic tools reject days outside 1..365 as a tool error', async () => {
    for (const days of [0, 366, 1.5]) {
      const r = await call('get_project_categories_scores_dynamic', { slug: 'aave', days });
      expect(r.isError, String(days)).toBe(true);
    }
    expect((await ok('get_exchange_categories_scores_dynamic', { slug: 'binance', days: 365 })).points.length).toBeGreaterThan(0);
  });
});

describe('REST and tools agree', () => {
  it('for every project and exchange, each score tool equals its slice of REST pol/by_category', async () => {
    const checks = [
      ...sim.store.data.projects.map((e) => ({ e, service: 'projects_data', categories: PROJECT_CATEGORIES as readonly string[] })),
      ...sim.store.data.exchanges.map((e) => ({ e, service: 'exchanges_data', categories: EXCHANGE_CATEGORIES as readonly string[] })),
    ];
    await Promise.all(
      checks.map(async ({ e, service, categories }) => {
        const body = await rest(`/${service}/v1/${e.slug}/pol/by_category`);
        const slices = new Map<string, unknown>(body.categories.map((c: any) => [c.category, c.score]));
        expect([...slices.keys()].sort()).toEqual([...categories].sort());
        await Promise.all(
          categories.map(async (category) => {
            const tool = await ok(`get_${e.kind}_${category}_score`, { slug: e.slug });
            expect(tool.score, `${e.kind} ${e.slug} ${category}`).toEqual(slices.get(category));
            expect(tool.score).toEqual(expectedScore(e, category));
          }),
        );
      }),
    );
  });

  it('for every project and exchange, the dynamic tool points equal REST by_category/history/chart?days=30', async () => {
    const all: [SimEntity, string][] = [
      ...sim.store.data.projects.map((e): [SimEntity, string] => [e, 'projects_data']),
      ...sim.store.data.exchanges.map((e): [SimEntity, string] => [e, 'exchanges_data']),
    ];
    await Promise.all(
      all.map(async ([e, service]) => {
        const [body, tool] = await Promise.all([
          rest(`/${service}/v1/${e.slug}/pol/by_category/history/chart?days=30`),
          ok(`get_${e.kind}_categories_scores_dynamic`, { slug: e.slug, days: 30 }),
        ]);
        expect(tool.points, `${e.kind} ${e.slug}`).toEqual(body.points);
        expect(tool.points).toEqual(entityViews.byCategoryChart(sim.store, e, 30).points);
      }),
    );
  });
});

describe('errors', () => {
  it('answers an unknown slug on every slug tool with a tool error naming it', async () => {
    for (const name of [...PROJECT_SLUG_TOOLS, ...EXCHANGE_SLUG_TOOLS]) {
      const r = await call(name, { slug: 'no-such-entity' });
      expect(r.isError, name).toBe(true);
      expect(textOf(r), name).toContain("'no-such-entity'");
    }
    expect(textOf(await call('get_project_age', { slug: 'no-such-entity' }))).toMatch(/resolve_project_slug/);
  });

  it('never resolves across kinds: a project slug is unknown to exchange tools and vice versa', async () => {
    const onlyProject = sim.store.data.projects.find((p) => !sim.store.exchange(p.slug))!;
    const onlyExchange: SimExchange = sim.store.data.exchanges.find((e) => !sim.store.project(e.slug))!;
    expect((await call('get_exchange_security_score', { slug: onlyProject.slug })).isError).toBe(true);
    expect((await call('get_project_security_score', { slug: onlyExchange.slug })).isError).toBe(true);
  });

  it('matches slugs exactly, never by display name', async () => {
    expect((await call('get_project_security_score', { slug: 'Bitcoin' })).isError).toBe(true);
  });

  it('rejects a missing API key (401) and a wrong one (403) at the transport', async () => {
    const missing = connect({});
    await expect(missing).rejects.toBeInstanceOf(StreamableHTTPError);
    await expect(missing).rejects.toMatchObject({ code: 401 });
    await expect(connect({ 'x-api-key': 'svc_wrong' })).rejects.toMatchObject({ code: 403 });
  });

  it('refuses GET and DELETE with a JSON-RPC error, as a stateless server does', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(sim.mcpUrl, { method, headers: { 'x-api-key': sim.apiKey, accept: 'text/event-stream' } });
      expect(res.status, method).toBe(405);
      expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
    }
  });

  it('answers a body that is not JSON with a parse error, and an oversized one with 413', async () => {
    const headers = { 'x-api-key': sim.apiKey, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const bad = await fetch(sim.mcpUrl, { method: 'POST', headers, body: '{not json' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.code).toBe(-32700);
    const big = await fetch(sim.mcpUrl, { method: 'POST', headers, body: `"${'x'.repeat(1024 * 1024 + 10)}"` });
    expect(big.status).toBe(413);
    // Without a content-length the limit is found while reading; the 413 must still arrive.
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 40) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const chunked = await fetch(sim.mcpUrl, { method: 'POST', headers, body: stream, duplex: 'half' } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(((await chunked.json()) as any).error.code).toBe(-32600);
  });

  it('marks raw MCP answers as simulated and keeps them plain JSON', async () => {
    const res = await fetch(sim.mcpUrl, {
      method: 'POST',
      headers: {
        'x-api-key': sim.apiKey,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'get_project_security_score', arguments: { slug: 'bitcoin' } },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-simulated')).toBe('true');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const body = (await res.json()) as any;
    expect(body.id).toBe(7);
    expect(body.result.structuredContent.score).toEqual(expectedScore(project('bitcoin'), 'security'));
  });
});

describe('faults and counting', () => {
  it("the 'shape' fault yields a wrong-shaped body once, then the next call is normal", async () => {
    sim.faults.next('mcp:get_project_security_score', { kind: 'shape' });
    const odd = await call('get_project_security_score', { slug: 'bitcoin' });
    expect(odd.isError).toBeFalsy();
    expect(odd.structuredContent).toEqual({ status: 'ok', unexpected: true, simulated: true });
    const normal = await ok('get_project_security_score', { slug: 'bitcoin' });
    expect(normal.score).toEqual(expectedScore(project('bitcoin'), 'security'));
  });

  it('counts each tool call by name', async () => {
    const before = sim.counter.tool('get_project_age');
    const otherBefore = sim.counter.tool('get_project_red_flags');
    await call('get_project_age', { slug: 'bitcoin' });
    await call('get_project_age', { slug: 'no-such-entity' });
    expect(sim.counter.tool('get_project_age')).toBe(before + 2);
    expect(sim.counter.tool('get_project_red_flags')).toBe(otherBefore);
    await client.listTools();
    expect(sim.counter.tool('tools/list')).toBe(0);
  });

  it('every documented tool was called at least once in this file', () => {
    for (const name of DOCUMENTED_TOOLS) expect(sim.counter.tool(name), name).toBeGreaterThan(0);
    expect([...sim.counter.byTool.keys()].every((k) => DOCUMENTED_TOOLS.includes(k))).toBe(true);
  });
});
