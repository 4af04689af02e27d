import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkSources, type SourceCheck } from '../../../src/api/diagnose.js';
import { McpSource } from '../../../src/api/mcp/source.js';
import { RestSource } from '../../../src/api/rest/source.js';
import { Health } from '../../../src/ops/health.js';
import type { Simulator } from '../../../src/sim/server.js';
import { ask, demoCore, visibleText } from '../../helpers/core.js';
import { onRoute, setAt, startOddProxy, type OddProxy } from '../../helpers/odd-proxy.js';
import { startTestSimulator } from '../../helpers/sim.js';

/**
 * The health check tells apart what an operator has to fix: each case is a real failure on
 * loopback (a closed port, a plain-HTTP port spoken to in TLS, a wrong key, a wrong base path, a
 * gateway answering 5xx or another shape, a tool list that drifted).
 */

let sim: Simulator;
let proxy: OddProxy;
const open: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  sim = await startTestSimulator();
  proxy = await startOddProxy(sim.url);
});
afterEach(async () => {
  sim.faults.reset();
  proxy.set(null);
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await proxy.close();
  await sim.close();
});

function rest(baseUrl: string, options: Partial<ConstructorParameters<typeof RestSource>[0]> = {}): RestSource {
  const source = new RestSource({ baseUrl, apiKey: sim.apiKey, timeoutMs: 1_500, maxAttempts: 1, ...options });
  open.push({ close: () => source.close() });
  return source;
}

function mcp(url: string, apiKey = sim.apiKey): McpSource {
  const source = new McpSource({ url, apiKey, timeoutMs: 1_500, maxAttempts: 1 });
  open.push(source);
  return source;
}

const only = async (source: RestSource | McpSource): Promise<SourceCheck> => (await checkSources([source]))[0]!;
const kinds = (check: SourceCheck) => [...new Set(check.problems.map((p) => p.kind))];

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('the health check diagnoses', () => {
  it('agrees with a healthy simulator on both sources', async () => {
    const checks = await checkSources([rest(sim.url), mcp(sim.mcpUrl)]);
    expect(checks.map((c) => [c.source, c.ok, c.problems])).toEqual([
      ['rest', true, []],
      ['mcp', true, []],
    ]);
  });

  it('a host name that does not resolve', async () => {
    const noSuchHost = (_host: string, _opts: unknown, callback: (err: Error | null) => void) =>
      callback(Object.assign(new Error('getaddrinfo ENOTFOUND gateway.example'), { code: 'ENOTFOUND' }));
    const check = await only(rest('http://gateway.example', { lookup: noSuchHost as never }));
    expect(kinds(check)).toEqual(['dns']);
    expect(check.problems[0]!.summary).toBe('its host name does not resolve (ENOTFOUND): check POL_API_BASE_URL');
  });

  it('a connection refused, on either source', async () => {
    const port = await closedPort();
    const restCheck = await only(rest(`http://127.0.0.1:${port}`));
    expect(kinds(restCheck)).toEqual(['refused']);
    expect(restCheck.problems[0]!.summary).toContain('check POL_API_BASE_URL');
    const mcpCheck = await only(mcp(`http://127.0.0.1:${port}/mcp`));
    expect(kinds(mcpCheck)).toEqual(['refused']);
    expect(mcpCheck.problems[0]!.summary).toContain('check POL_MCP_URL');
  });

  it('TLS spoken to a port that answers in plain HTTP', async () => {
    const check = await only(rest(sim.url.replace('http:', 'https:')));
    expect(kinds(check)).toEqual(['tls']);
    expect(check.problems[0]!.summary).toMatch(
      /^the TLS handshake failed \(\w+\): check the certificate, or http versus https in POL_API_BASE_URL$/,
    );
  });

  it('a timeout', async () => {
    sim.faults.set({ latencyMs: 5_000 });
    const check = await only(rest(sim.url, { timeoutMs: 300 }));
    expect(kinds(check)).toEqual(['timeout']);
    expect(check.problems).toHaveLength(1);
  });

  it('a key the gateway refuses, on either source', async () => {
    const restCheck = await only(rest(sim.url, { apiKey: 'svc_not_the_key' }));
    expect(kinds(restCheck)).toEqual(['key']);
    expect(restCheck.problems[0]!.summary).toBe('it refused the key (HTTP 403): check POL_API_KEY');
    expect(kinds(await only(mcp(sim.mcpUrl, 'svc_not_the_key')))).toEqual(['key']);
  });

  it('a 404 on the base path', async () => {
    const check = await only(rest(`${sim.url}/api`));
    expect(kinds(check)).toEqual(['base_path']);
    expect(check.problems[0]!.summary).toBe('projects_data /v1/health answered 404: the base path looks wrong; check POL_API_BASE_URL');
  });

  it('a gateway answering 5xx', async () => {
    sim.faults.next(/./, { kind: 'status', status: 502 }, 10);
    const check = await only(rest(sim.url));
    expect(kinds(check)).toEqual(['server_error']);
    expect(check.problems.map((p) => p.summary)).toContain('it answered HTTP 502 on projects_data /v1/health');
  });

  it('an answer of another shape, naming the route and the first field that differs', async () => {
    proxy.set(onRoute(/^\/projects_data\/v1\/pol$/, (body) => ({ ...(body as object), pol: undefined, value: 0.12 })));
    const check = await only(rest(proxy.url));
    expect(check.problems).toEqual([{ kind: 'shape', summary: 'unexpected answer from projects_data /v1/pol: pol: missing' }]);

    proxy.set(onRoute(/^get_projects_list$/, setAt('projects', { count: 3 })));
    const mcpCheck = await only(mcp(proxy.mcpUrl));
    expect(mcpCheck.problems).toEqual([
      { kind: 'shape', summary: 'unexpected answer from mcp get_projects_list: projects: an object where an array was expected' },
    ]);
  });

  it('a tool list that drifted: a tool gone, a required argument added', async () => {
    proxy.set(
      onRoute(/^tools\/list$/, (result) => {
        const r = result as { tools: { name: string; inputSchema: { properties: Record<string, unknown>; required?: string[] } }[] };
        r.tools = r.tools.filter((t) => t.name !== 'get_project_github_activity');
        const age = r.tools.find((t) => t.name === 'get_project_age')!;
        age.inputSchema.properties.asOf = { type: 'string' };
        age.inputSchema.required = [...(age.inputSchema.required ?? []), 'asOf'];
        return r;
      }),
    );
    const check = await only(mcp(proxy.mcpUrl));
    expect(kinds(check)).toEqual(['tool_drift']);
    const text = check.problems.map((p) => p.summary).join('\n');
    expect(text).toContain('get_project_github_activity');
    expect(text).toMatch(/get_project_age.*asOf/);
  });
});

describe('what a person and an orchestrator see', () => {
  it('/pol health names the route and field, and /healthz lists the problem per source', async () => {
    const core = await demoCore({ POL_API_BASE_URL: proxy.url, POL_API_KEY: sim.apiKey, POL_MCP_URL: proxy.mcpUrl });
    try {
      proxy.set(onRoute(/^\/projects_data\/v1\/pol$/, setAt('pol', 'n/a')));
      const text = visibleText(await ask(core, 'health'));
      expect(text).toContain('The risk-data service answers through the tool server only');
      expect(text).toContain('unexpected answer from projects_data /v1/pol');

      const health = new Health(core.upstream.source, { checkIntervalMs: 0 });
      const problems = await health.check();
      expect(problems).toEqual({ rest: [{ kind: 'shape', summary: expect.stringContaining('projects_data /v1/pol') }], mcp: [] });
      const report = await health.report();
      expect(report.status).toBe('degraded');
      expect(report.upstream.healthy).toBe(false);
      expect(report.upstream.problems.rest).toHaveLength(1);
    } finally {
      await core.close();
    }
  });
});
