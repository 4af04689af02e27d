import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/sim/server.js';
import { secretWatch } from './secret-watch.js';

/** A fixed "as of" day keeps every test's data byte-identical from run to run. */
export const TEST_AS_OF = new Date('2026-11-22T00:00:00Z');

export async function startTestSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const sim = await startSimulator({ seed: 42, asOf: TEST_AS_OF, ...options });
  secretWatch.secret(sim.apiKey, 'upstream API key');
  return sim;
}

/** GET a simulator route with the demo key; returns status, headers and parsed JSON (or the raw text). */
export async function simGet(sim: Simulator, path: string, init: { key?: string | null } = {}) {
  const headers: Record<string, string> = {};
  const key = init.key === undefined ? sim.apiKey : init.key;
  if (key !== null) headers['x-api-key'] = key;
  const res = await fetch(`${sim.url}${path}`, { headers, redirect: 'manual' });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** Moves the simulator as the upstream would move, over its admin route (`POST /_sim/move`). */
export async function simMove(sim: Simulator, body: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${sim.url}/_sim/move`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': sim.apiKey },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`the simulator refused the move (${res.status}): ${await res.text()}`);
}
