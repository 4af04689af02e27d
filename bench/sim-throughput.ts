/**
 * How many requests a second the simulator serves to a plain keep-alive client on loopback with
 * latency off. Bounded: a fixed number of requests, at a fixed concurrency.
 */
import { Pool } from 'undici';
import { startSimulator } from '../src/sim/server.js';

const TOTAL = Number(process.env.SIM_BENCH_REQUESTS ?? 20_000);
const CONCURRENCY = 32;
const PATHS = [
  '/projects_data/v1/bitcoin/pol/current',
  '/exchanges_data/v1/binance/pol/by_category',
  '/projects_data/v1/aave/reputational',
];

export async function simThroughput(total = TOTAL): Promise<{ requests: number; seconds: number; perSecond: number }> {
  const sim = await startSimulator({ seed: 42 });
  const pool = new Pool(sim.url, { connections: CONCURRENCY });
  let issued = 0;
  const started = performance.now();
  async function worker() {
    while (issued < total) {
      const path = PATHS[issued++ % PATHS.length]!;
      const res = await pool.request({ path, method: 'GET', headers: { 'x-api-key': sim.apiKey } });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`unexpected ${res.statusCode}`);
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  await sim.close();
  return { requests: total, seconds, perSecond: total / seconds };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await simThroughput();
  console.log(`simulator: ${r.requests} requests in ${r.seconds.toFixed(2)} s = ${Math.round(r.perSecond)} req/s`);
}
