import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../../commands/core/core.js';
import type { CardReply } from '../../../src/reply/model.js';
import type { Simulator } from '../../../src/sim/server.js';
import { ask, demoCore } from '../../helpers/core.js';
import { simGet, startTestSimulator } from '../../helpers/sim.js';
import { scoreText } from '../../helpers/truth.js';

/**
 * The simulator moves on request (`POST /_sim/move`), so alerts and demos have something to see:
 * what it answers afterwards, through REST and through the tool server, is the moved value.
 */

let sim: Simulator;
let tools: Core;

beforeAll(async () => {
  sim = await startTestSimulator();
  tools = await demoCore({ POL_SOURCE: 'mcp', POL_MCP_URL: sim.mcpUrl, POL_API_KEY: sim.apiKey });
});
afterAll(async () => {
  await tools.close();
  await sim.close();
});

function move(body: unknown, key: string | null = sim.apiKey) {
  return fetch(`${sim.url}/_sim/move`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('moving the simulator', () => {
  it('moves an exchange’s PoL, and a project to a rating, as REST then answers them', async () => {
    const moved = await move({ kind: 'exchange', slug: 'kraken', pol: 0.123 });
    expect(moved.status).toBe(200);
    expect(await moved.json()).toMatchObject({ slug: 'kraken', pol: 0.123, rating: 'B', simulated: true });
    expect((await simGet(sim, '/exchanges_data/v1/kraken/pol/current')).body).toMatchObject({ pol: 0.123, rating: 'B' });

    expect((await move({ kind: 'project', slug: 'aave', rating: 'CCC' })).status).toBe(200);
    expect((await simGet(sim, '/projects_data/v1/aave/pol/current')).body).toMatchObject({ rating: 'CCC' });
  });

  it('moves a category score and adds a red flag, as the tool server then answers them', async () => {
    expect((await move({ kind: 'project', slug: 'pepe', categories: { security: 12.5 }, redFlag: 'Deployer wallet drained' })).status).toBe(
      200,
    );
    const card = (await ask(tools, 'pepe')) as CardReply;
    expect(card.sections.find((s) => s.title === 'Category quality scores')?.fields?.find((f) => f.label === 'Security')?.value).toBe(
      scoreText(12.5),
    );
    expect(JSON.stringify(card)).toContain('Deployer wallet drained');
    // Index PoL follows a moved entity.
    const before = (await simGet(sim, '/exchanges_data/v1/pol')).body.pol as number;
    await move({ kind: 'exchange', slug: 'okx', pol: 0.9 });
    expect((await simGet(sim, '/exchanges_data/v1/pol')).body.pol).toBeGreaterThan(before);
  });

  it('moves a project’s token on every exchange that lists it, and leaves tokens of no project as generated', async () => {
    const { tokens, exchanges } = sim.store.data;
    const pepe = tokens.find((t) => t.projectSlug === 'pepe')!;
    const listing = exchanges.filter((e) => e.listed.includes(pepe.id));
    expect(listing.length).toBeGreaterThan(1);
    const listed = async (slug: string) => {
      const items: { id: number; polScore: number }[] = [];
      for (let page = 1; ; page++) {
        const r = await simGet(sim, `/exchanges_data/v1/${slug}/listed_assets?page_size=50&page=${page}`);
        items.push(...r.body.items);
        if (page >= r.body.total_pages) return items;
      }
    };
    expect((await move({ kind: 'project', slug: 'pepe', pol: 0.61 })).status).toBe(200);
    for (const e of listing) expect((await listed(e.slug)).find((a) => a.id === pepe.id)?.polScore, e.slug).toBe(0.61);
    const orphan = tokens.find((t) => t.projectSlug === null && listing[0]!.listed.includes(t.id))!;
    expect((await listed(listing[0]!.slug)).find((a) => a.id === orphan.id)?.polScore).toBe(orphan.polScore);
  });

  it('refuses what the upstream could never say, and anyone without the key', async () => {
    const refused = async (body: unknown) => {
      const r = await move(body);
      return { status: r.status, message: ((await r.json()) as { error?: { message?: string } }).error?.message ?? '' };
    };
    expect(await refused({ kind: 'exchange', slug: 'kraken', pol: 1.5 })).toMatchObject({
      status: 400,
      message: expect.stringContaining('pol'),
    });
    expect(await refused({ kind: 'exchange', slug: 'kraken', rating: 'Z' })).toMatchObject({ status: 400 });
    expect(await refused({ kind: 'exchange', slug: 'kraken', categories: { financial: 50 } })).toMatchObject({
      status: 400,
      message: 'An exchange has no category financial: security, transparency, solvency',
    });
    expect(await refused({ kind: 'project', slug: 'aave', categories: { security: 250 } })).toMatchObject({ status: 400 });
    expect(await refused({ kind: 'exchange', slug: 'kraken', redFlag: 'x' })).toMatchObject({
      status: 400,
      message: 'Red flags are published for projects only',
    });
    expect(await refused({ kind: 'exchange', slug: 'nope', pol: 0.1 })).toMatchObject({ status: 404 });
    expect(await refused('{not json')).toMatchObject({ status: 400, message: 'Body is not JSON' });
    expect((await move({ kind: 'exchange', slug: 'kraken', pol: 0.2 }, null)).status).toBe(401);
    expect((await move({ kind: 'exchange', slug: 'kraken', pol: 0.2 }, 'wrong')).status).toBe(403);
    expect((await fetch(`${sim.url}/_sim/move`)).status).toBe(405);
    // Nothing refused moved anything.
    expect((await simGet(sim, '/exchanges_data/v1/kraken/pol/current')).body.pol).toBe(0.123);
  });
});
