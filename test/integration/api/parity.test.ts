import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpSource } from '../../../src/api/mcp/source.js';
import type { RestSource } from '../../../src/api/rest/source.js';
import type { Simulator } from '../../../src/sim/server.js';
import { startTestSimulator } from '../../helpers/sim.js';
import { mcpSource, restSource } from '../../helpers/sources.js';

let sim: Simulator;
let rest: RestSource;
let mcp: McpSource;
beforeAll(async () => {
  sim = await startTestSimulator();
  rest = restSource(sim);
  mcp = mcpSource(sim);
});
afterAll(async () => {
  await rest.close();
  await mcp.close();
  await sim.close();
});

/** Everything both sources offer, read through each, must map to identical domain values. */
describe('REST and MCP parity', () => {
  it('agrees on every shared project datum for 24 projects', async () => {
    const projects = sim.store.data.projects.filter((_, i) => i % 3 === 0).map((p) => p.slug);
    expect(projects.length).toBeGreaterThanOrEqual(20);
    for (const slug of projects) {
      const [r, m] = await Promise.all([readProject(rest, slug), readProject(mcp, slug)]);
      expect(m, slug).toEqual(r);
    }
  });

  it('agrees on category scores and their history for every exchange', async () => {
    for (const { slug } of sim.store.data.exchanges) {
      const [rc, mc, rh, mh] = await Promise.all([
        rest.byCategory('exchange', slug),
        mcp.byCategory('exchange', slug),
        rest.byCategoryChart('exchange', slug, 30),
        mcp.byCategoryChart('exchange', slug, 30),
      ]);
      expect(mc.data.categories, slug).toEqual(rc.data.categories.map(({ category, score }) => ({ category, score })));
      expect(mh.data, slug).toEqual(rh.data);
    }
  });
});

async function readProject(source: RestSource | McpSource, slug: string) {
  const [cats, chart, flags, social, reg, certs, team, gh, age, market, proscons, reviews] = await Promise.all([
    source.byCategory('project', slug),
    source.byCategoryChart('project', slug, 14),
    source.redFlags(slug),
    source.socialFraud(slug),
    source.registration(slug),
    source.certifications(slug),
    source.team(slug),
    source.githubActivity(slug),
    source.age(slug),
    source.marketData(slug),
    source.voiceProsCons(slug),
    source.voiceReviews(slug),
  ]);
  return {
    categories: cats.data.categories.map(({ category, score }) => ({ category, score })),
    security: (await source.categoryScore('project', slug, 'security')).data,
    chart: chart.data,
    flags: flags.data,
    social: social.data,
    registration: { publicRegistration: reg.data.publicRegistration, jurisdictionTier: reg.data.jurisdictionTier },
    certifications: certs.data,
    team: team.data,
    github: gh.data,
    age: age.data,
    market: { price: market.data.price, marketCap: market.data.marketCap },
    proscons: proscons.data,
    reviews: reviews.data,
  };
}
