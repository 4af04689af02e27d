import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../../src/sim/server.js';
import { secretWatch } from '../../helpers/secret-watch.js';
import { startTestSimulator } from '../../helpers/sim.js';

/**
 * `polbot ask` on the tool server alone (`POL_SOURCE=mcp`, no REST base URL). While the tool
 * server is up, what only REST has is said to need it; once the tool server stops, every answer is
 * that the service is unavailable, whether the data asked for lives in REST or in the tools.
 */

const BIN = join(import.meta.dirname, '../../../bin/polbot.js');
const UNAVAILABLE =
  'The risk-data service is unavailable right now. Please try again shortly.\nTry again in a minute; polbot ask "health" shows the service status.\n';

let sim: Simulator;
let stopped = false;

beforeAll(async () => {
  sim = await startTestSimulator();
});
afterAll(async () => {
  if (!stopped) await sim.close();
});

/** Runs `polbot ask <text>` against the simulator's tool server alone; an error answer exits 1. */
async function ask(text: string): Promise<{ code: number; stdout: string }> {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    NO_COLOR: '1',
    POL_SOURCE: 'mcp',
    POL_MCP_URL: sim.mcpUrl,
    POL_API_KEY: sim.apiKey,
  };
  const result = await promisify(execFile)('node', [BIN, 'ask', text], { env, timeout: 60_000 }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
  secretWatch.outputText(`\`polbot ask ${text}\` stdout`, result.stdout);
  secretWatch.outputText(`\`polbot ask ${text}\` stderr`, result.stderr);
  return { code: result.code, stdout: result.stdout };
}

describe('polbot ask with the tool server alone', () => {
  it('says top ratings need REST while the tool server is up', { timeout: 60_000 }, async () => {
    expect(await ask('top')).toEqual({
      code: 1,
      stdout:
        'Top ratings is not available through the tool server, and no REST base URL is configured.\nThe operator can configure POL_API_BASE_URL to enable it.\n',
    });
  });

  it('once the tool server stops, says the service is unavailable, not that REST is missing', { timeout: 60_000 }, async () => {
    await sim.close();
    stopped = true;
    for (const text of ['project:aave', 'top']) {
      const answer = await ask(text);
      expect(answer, text).toEqual({ code: 1, stdout: UNAVAILABLE });
      expect(answer.stdout).not.toContain('POL_API_BASE_URL');
      expect(answer.stdout).not.toContain('not available through the tool server');
    }
  });
});
