import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContractRow } from '../../../src/api/contract-check.js';
import { TOOL_CONTRACT } from '../../../src/api/mcp/contract.js';
import type { Simulator } from '../../../src/sim/server.js';
import { compose, onRoute, setAt, startOddProxy, type Mutator, type OddProxy } from '../../helpers/odd-proxy.js';
import { secretWatch } from '../../helpers/secret-watch.js';
import { startTestSimulator } from '../../helpers/sim.js';

const BIN = join(import.meta.dirname, '../../../bin/polbot.js');
const BASE_ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1' };

interface DoctorRun {
  code: number;
  stdout: string;
  rows: ContractRow[];
}

/** `polbot doctor` as a person runs it, in a child process; `--json` for the rows, or the table. */
function doctor(env: Record<string, string>, args: string[] = ['--json']): Promise<DoctorRun> {
  return new Promise((resolve, reject) => {
    execFile('node', [BIN, 'doctor', ...args], { env: { ...BASE_ENV, ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      secretWatch.outputText('polbot doctor stdout', stdout);
      secretWatch.outputText('polbot doctor stderr', stderr);
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      if (code !== 0 && code !== 1) return reject(new Error(`polbot doctor exited ${code}: ${stderr}`));
      resolve({ code, stdout, rows: args.includes('--json') ? (JSON.parse(stdout) as { rows: ContractRow[] }).rows : [] });
    });
  });
}

const failing = (rows: ContractRow[]) => rows.filter((r) => !r.ok);

describe('polbot doctor', () => {
  it('agrees with the simulator on every route and tool, through REST and the tool server', async () => {
    const run = await doctor({ POL_SOURCE: 'mcp' });
    expect(failing(run.rows)).toEqual([]);
    expect(run.code).toBe(0);
    const routes = new Set(run.rows.flatMap((r) => r.routes));
    // Every tool polbot calls, and the tool list itself, were checked.
    for (const tool of Object.keys(TOOL_CONTRACT)) expect(routes, tool).toContain(`mcp ${tool}`);
    expect(routes).toContain('mcp tools/list');
    // Both REST services, down to the exchange-only and the chart routes.
    for (const route of [
      'projects_data /v1/{slug}/pol/current',
      'projects_data /v1/{slug}/proof_of_voice/history/chart',
      'exchanges_data /v1/{slug}/solvency/liabilities_reserves/history/chart',
      'exchanges_data /v1/lost_funds',
      'exchanges_data /v1/ratings/parameters/tokens',
    ]) {
      expect(routes).toContain(route);
    }
  });

  it('prints one row per operation and says that all agree', async () => {
    const run = await doctor({}, []);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^polbot doctor: \d+ operations against the built-in simulator \(demo mode\)/);
    expect(run.stdout).toMatch(/^rest +polCurrent project bitcoin +projects_data \/v1\/\{slug\}\/pol\/current +ok$/m);
    expect(run.stdout).toContain('Every operation agrees with what polbot expects.');
  });

  describe('against an upstream that changes one field', () => {
    let sim: Simulator;
    let proxy: OddProxy;
    let env: Record<string, string>;

    beforeAll(async () => {
      sim = await startTestSimulator();
      proxy = await startOddProxy(sim.url);
      env = { POL_API_BASE_URL: proxy.url, POL_API_KEY: sim.apiKey, POL_MCP_URL: proxy.mcpUrl, POL_SOURCE: 'rest' };
    });
    afterAll(async () => {
      await proxy.close();
      await sim.close();
    });

    const runWith = async (mutator: Mutator) => {
      proxy.set(mutator);
      try {
        return await doctor(env);
      } finally {
        proxy.set(null);
      }
    };

    it('names a PoL of 1.7 on the REST current-PoL route, and nothing else', async () => {
      const run = await runWith(onRoute(/^\/projects_data\/v1\/[^/]+\/pol\/current$/, setAt('pol', 1.7)));
      expect(run.code).toBe(1);
      expect(failing(run.rows)).toEqual([
        {
          source: 'rest',
          operation: 'polCurrent project bitcoin',
          routes: ['projects_data /v1/{slug}/pol/current'],
          ok: false,
          result: 'projects_data /v1/{slug}/pol/current: pol out of range (got 1.7)',
        },
      ]);
    });

    it('names a quality score of 250 from a score tool', async () => {
      const run = await runWith(onRoute(/^get_project_security_score$/, setAt('score.score', 250)));
      expect(run.code).toBe(1);
      expect(failing(run.rows).map((r) => [r.source, r.operation, r.result])).toEqual([
        // The whole breakdown is made of the five score tools; it shows the same difference.
        ['mcp', 'byCategory project bitcoin', 'mcp get_project_security_score: score.score out of range (got 250)'],
        ['mcp', 'categoryScore project bitcoin security', 'mcp get_project_security_score: score.score out of range (got 250)'],
      ]);
    });

    it('names the first field that differs when a route answers in another shape', async () => {
      const run = await runWith(onRoute(/^\/exchanges_data\/v1\/list$/, setAt('items', 'n/a')));
      expect(run.code).toBe(1);
      const row = failing(run.rows).find((r) => r.operation === 'list exchange');
      expect(row?.result).toBe('unexpected answer from exchanges_data /v1/list: items: a string where an array was expected');
    });

    it('reports a tool that left the tool list and a tool whose input changed', async () => {
      const run = await runWith(
        onRoute(
          /^tools\/list$/,
          compose((result) => {
            const r = result as { tools: { name: string; inputSchema: { properties: Record<string, unknown>; required?: string[] } }[] };
            r.tools = r.tools.filter((t) => t.name !== 'get_project_age');
            const reviews = r.tools.find((t) => t.name === 'get_project_proof_of_voice_expert_reviews')!;
            reviews.inputSchema.properties.language = { type: 'string' };
            reviews.inputSchema.required = [...(reviews.inputSchema.required ?? []), 'language'];
            return r;
          }),
        ),
      );
      expect(run.code).toBe(1);
      const [row, ...others] = failing(run.rows);
      expect(others).toEqual([]);
      expect(row?.operation).toBe('tools/list');
      expect(row?.result).toContain('get_project_age');
      expect(row?.result).toContain('get_project_proof_of_voice_expert_reviews');
      expect(row?.result).toContain('language');
    });
  });
});
