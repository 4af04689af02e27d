import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpSource } from '../../../src/api/mcp/source.js';
import { SimStore } from '../../../src/sim/data/store.js';
import { TEST_AS_OF } from '../../helpers/sim.js';

const BIN = join(import.meta.dirname, '../../../bin/polbot.js');

describe('McpSource over stdio (POL_MCP_COMMAND)', () => {
  it('starts the tool server as a child and reads the same numbers', async () => {
    const store = new SimStore({ seed: 42, asOf: TEST_AS_OF });
    const source = new McpSource({ command: `node ${BIN} sim --mcp-stdio --as-of 2026-11-22`, timeoutMs: 30_000 });
    try {
      const scores = (await source.byCategory('project', 'aave')).data.categories;
      expect(scores.find((c) => c.category === 'security')!.score.score).toBe(store.project('aave')!.categories.security.scores.at(-1));
      expect((await source.redFlags('pepe')).data.marketMaker).toEqual(store.project('pepe')!.redFlags.mm);
      expect((await source.resolveProject('lido')).data!.status).toBe('ambiguous');
      await expect(source.polCurrent('project', 'aave')).rejects.toMatchObject({ kind: 'not_available' });
    } finally {
      await source.close();
    }
  });
});

/**
 * A tool server that sends exactly the fields the tool document lists and nothing more: polbot
 * must work against it.
 */
function minimalServer(healthText: string): McpServer {
  const server = new McpServer({ name: 'minimal', version: '1.0.0' });
  const slug = { slug: z.string() };
  const ok = (structuredContent: Record<string, unknown>) => ({ content: [{ type: 'text' as const, text: 'ok' }], structuredContent });
  const envelope = (entityType: string, metric: string, s: string, score: number) =>
    ok({
      status: 'ok',
      entityType,
      metric,
      requestedSlug: s,
      resolvedSlug: s,
      scoreType: 'category_quality',
      scoreDirection: 'higher_is_better',
      interpretationHint: 'Category quality score, not overall PoL; higher is better.',
      score: { score, rating: 'A', confidence: 'High' },
    });
  server.registerTool('check_health', {}, () => ({ content: healthText ? [{ type: 'text' as const, text: healthText }] : [] }));
  server.registerTool('resolve_project_slug', { inputSchema: { query: z.string() } }, ({ query }) =>
    ok({
      status: 'resolved',
      entityType: 'project',
      query,
      resolvedSlug: 'alpha',
      resolvedName: 'Alpha',
      matches: [{ slug: 'alpha', name: 'Alpha' }],
    }),
  );
  server.registerTool('get_projects_list', {}, () => ok({ projects: [{ name: 'Alpha', slug: 'alpha' }], totalProjects: 1 }));
  server.registerTool('get_project_age', { inputSchema: slug }, () =>
    ok({ projectLaunchedAt: '2020-01-01', protocolLaunchedAt: '2020-06-01' }),
  );
  server.registerTool('get_project_github_activity', { inputSchema: slug }, () => ok({ heatmap: { weeks: 'opaque' }, commitsCount7d: 12 }));
  server.registerTool('get_project_team_track_record', { inputSchema: slug }, () =>
    ok({ isEducationRelevant: true, isWorkExperienceRelevant: false, isBusinessExperienceRelevant: true }),
  );
  server.registerTool('get_project_certifications', { inputSchema: slug }, () =>
    ok({ isIso27001Present: false, isCcssPresent: true, ccssLevel: 2, isSoc2Present: false }),
  );
  server.registerTool('get_project_red_flags', { inputSchema: slug }, () =>
    ok({ mmRedFlags: 'none_identified', investorRedFlags: ['Unlock cliff'] }),
  );
  server.registerTool('get_project_social_fraud', { inputSchema: slug }, () =>
    ok({ social: { followers: 10, nested: { ignored: true } } }),
  );
  server.registerTool('get_project_public_registration', { inputSchema: slug }, () =>
    ok({ isPublicRegistrationPresent: true, jurisdictionQuality: 'not_returned' }),
  );
  server.registerTool('get_project_proof_of_voice_pros_and_cons', { inputSchema: slug }, () =>
    ok({ pros: ['Audited'], cons: 'none_identified' }),
  );
  server.registerTool('get_project_proof_of_voice_expert_reviews', { inputSchema: slug }, () =>
    ok({ reviews: [{ author: 'R', content: 'Fine', publishedAt: '2026-01-01' }] }),
  );
  server.registerTool('get_project_market_data', { inputSchema: slug }, () => ok({ price: 1.5, marketCap: 1_000_000 }));
  for (const c of ['security', 'financial', 'operational', 'reputational', 'regulatory']) {
    server.registerTool(`get_project_${c}_score`, { inputSchema: slug }, ({ slug: s }) => envelope('project', `${c}_score`, s, 70));
  }
  for (const c of ['security', 'transparency', 'solvency']) {
    server.registerTool(`get_exchange_${c}_score`, { inputSchema: slug }, ({ slug: s }) => envelope('exchange', `${c}_score`, s, 80));
  }
  const dynamic = { slug: z.string(), days: z.number().optional() };
  server.registerTool('get_project_categories_scores_dynamic', { inputSchema: dynamic }, () =>
    ok({ points: [{ timestamp: 1_763_769_600, security: { score: 1, rating: 'D', confidence: 'Low' } }] }),
  );
  server.registerTool('get_exchange_categories_scores_dynamic', { inputSchema: dynamic }, () =>
    ok({ points: [{ timestamp: 1_763_856_000, solvency: { score: 99, rating: 'AAA', confidence: 'High' } }] }),
  );
  return server;
}

describe('McpSource against a server that sends only the documented fields', () => {
  let http: Server;
  let url: string;
  let healthText = 'healthy';
  beforeAll(async () => {
    http = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const server = minimalServer(healthText);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => void server.close());
      await server.connect(transport);
      await transport.handleRequest(req, res, JSON.parse(Buffer.concat(chunks).toString() || 'null'));
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  });
  afterAll(() => new Promise<void>((r) => http.close(() => r())));

  it('maps every tool to domain values', async () => {
    const s = new McpSource({ url, timeoutMs: 5_000 });
    try {
      expect((await s.list('project')).data).toEqual([{ kind: 'project', slug: 'alpha', name: 'Alpha' }]);
      expect((await s.list('project')).meta.simulated).toBe(false);
      expect((await s.resolveProject('alpha')).data).toMatchObject({ status: 'resolved', resolved: { slug: 'alpha', name: 'Alpha' } });
      expect((await s.byCategory('project', 'alpha')).data.categories).toHaveLength(5);
      expect((await s.categoryScore('exchange', 'x', 'solvency')).data).toEqual({ score: 80, rating: 'A', confidence: 'High' });
      expect((await s.byCategoryChart('exchange', 'x', 30)).data).toEqual([
        { timestamp: 1_763_856_000, scores: { solvency: { score: 99, rating: 'AAA', confidence: 'High' } } },
      ]);
      expect((await s.redFlags('alpha')).data).toEqual({ marketMaker: [], investor: ['Unlock cliff'] });
      expect((await s.socialFraud('alpha')).data).toEqual({ metrics: { followers: 10 } });
      expect((await s.registration('alpha')).data).toEqual({ publicRegistration: true, jurisdictionTier: null });
      expect((await s.certifications('alpha')).data).toEqual({ iso27001: false, ccss: true, ccssLevel: 2, soc2: false });
      expect((await s.team('alpha')).data.workExperienceRelevant).toBe(false);
      expect((await s.githubActivity('alpha')).data).toEqual({ commitsCount7d: 12, heatmap: [] });
      expect((await s.age('alpha')).data.protocolLaunchedAt).toBe('2020-06-01');
      expect((await s.marketData('alpha')).data).toEqual({ price: 1.5, marketCap: 1_000_000 });
      expect((await s.voiceProsCons('alpha')).data).toEqual({ pros: ['Audited'], cons: [] });
      expect((await s.voiceReviews('alpha')).data).toEqual([{ author: 'R', content: 'Fine', publishedAt: '2026-01-01' }]);
      expect((await s.health()).data.healthy).toBe(true);
    } finally {
      await s.close();
    }
  });

  it('does not call a tool server healthy when check_health confirms nothing', async () => {
    const s = new McpSource({ url, timeoutMs: 5_000 });
    healthText = '';
    try {
      expect((await s.health()).data).toEqual({ healthy: false, checks: [{ name: 'mcp', ok: false }] });
    } finally {
      healthText = 'healthy';
      await s.close();
    }
  });
});
