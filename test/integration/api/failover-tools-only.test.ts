import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failover, type FailoverSource } from '../../../src/api/failover.js';
import { McpSource } from '../../../src/api/mcp/source.js';
import type { Simulator } from '../../../src/sim/server.js';
import { freePort } from '../../helpers/compose.js';
import { startTestSimulator } from '../../helpers/sim.js';
import { mcpSource } from '../../helpers/sources.js';

/**
 * The tool server alone behind the failover layer, asked for what only REST has (overall PoL, top
 * ratings). While the tool server is up the answer is that REST would be needed; while it is down,
 * the answer is its failure, since a REST base URL would not help anyone.
 */

let sim: Simulator;
let up: FailoverSource;
let down: FailoverSource;

beforeAll(async () => {
  sim = await startTestSimulator();
  up = failover([mcpSource(sim)]);
  down = failover([new McpSource({ url: `http://127.0.0.1:${await freePort()}/mcp`, timeoutMs: 3_000, backoffMs: 20 })]);
});
afterAll(async () => {
  await Promise.all([up.close(), down.close()]);
  await sim.close();
});

describe('failover with the tool server alone', () => {
  it('says what needs REST while the tool server is up, checking it once for calls made together', async () => {
    sim.counter.reset();
    const results = await Promise.allSettled([up.polCurrent('project', 'aave'), up.indexPol('project'), up.topRatings()]);
    expect(results.map((r) => (r.status === 'rejected' ? [r.reason.kind, r.reason.message] : 'answered'))).toEqual([
      ['not_available', 'Overall PoL is not available through the tool server, and no REST base URL is configured.'],
      ['not_available', 'Index-level PoL is not available through the tool server, and no REST base URL is configured.'],
      ['not_available', 'Top ratings is not available through the tool server, and no REST base URL is configured.'],
    ]);
    expect(sim.counter.tool('check_health')).toBe(1);
    // Having just answered, the tool server is not checked again at once.
    await expect(up.polCurrent('project', 'aave')).rejects.toMatchObject({ kind: 'not_available' });
    expect(sim.counter.tool('check_health')).toBe(1);
  });

  it('reports the tool server refusing connections as unavailable, never as REST missing', async () => {
    for (const call of [() => down.polCurrent('project', 'aave'), () => down.topRatings(), () => down.search('project', 'aave')]) {
      await expect(call()).rejects.toMatchObject({
        kind: 'unavailable',
        message: 'The risk-data service is unavailable right now. Please try again shortly.',
      });
    }
  });
});
