/**
 * `npm run bench`: polbot against the physical floor (one upstream round trip plus rendering) and
 * against the naive way of using the same API. Prints one table and writes bench/results.json.
 *
 *   npm run bench                       full run
 *   npm run bench -- --quick            reduced run (under a minute)
 *   npm run bench -- --soak [--quick]   50 commands/s against 10 % injected faults
 *   options: --latency MS (default 50) --jitter MS --only card,chart,... --in-process --cpu-prof
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchLogger } from './lib/polbot.js';
import { startSim, type SimHandle } from './lib/sim.js';
import type { BenchOptions, Row, ScenarioResult } from './lib/types.js';
import { alertsScenario } from './scenarios/alerts.js';
import { burstScenario } from './scenarios/burst.js';
import { cardScenario } from './scenarios/card.js';
import { chartScenario } from './scenarios/chart.js';
import { digestScenario } from './scenarios/digest.js';
import { fanoutScenario } from './scenarios/fanout.js';
import { exposureScenario } from './scenarios/exposure.js';
import { memoryScenario } from './scenarios/memory.js';
import { soakScenario } from './scenarios/soak.js';
import { telegramScenario } from './scenarios/telegram.js';
import { simThroughput } from './sim-throughput.js';

const HERE = fileURLToPath(import.meta.url);

const { values: args } = parseArgs({
  args: process.argv.slice(2),
  strict: true,
  options: {
    quick: { type: 'boolean', default: false },
    soak: { type: 'boolean', default: false },
    latency: { type: 'string', default: '50' },
    jitter: { type: 'string', default: '0' },
    only: { type: 'string' },
    'in-process': { type: 'boolean', default: false },
    'cpu-prof': { type: 'boolean', default: false },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

if (args.help) {
  console.log(readHelp());
  process.exit(0);
}

// Heap figures are only comparable after a full collection, which needs --expose-gc: re-run
// this script under it rather than asking every caller for flags.
if (typeof (globalThis as { gc?: unknown }).gc !== 'function' && !process.env.POLBOT_BENCH_CHILD) {
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', HERE, ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, POLBOT_BENCH_CHILD: '1', ...(args['cpu-prof'] ? { POLBOT_BENCH_PROFILE: '1' } : {}) },
  });
  process.exit(r.status ?? 1);
}

function readHelp(): string {
  return (
    'Usage: npm run bench -- [--quick] [--soak] [--latency MS] [--jitter MS] [--only LIST] [--in-process] [--cpu-prof] [--out FILE]\n' +
    '  scenarios (--only): card, chart, burst, telegram, digest, memory, alerts, exposure, fanout, sim, soak'
  );
}

const latencyMs = Number(args.latency);
const jitterMs = Number(args.jitter);
if (!Number.isFinite(latencyMs) || latencyMs < 1 || latencyMs > 2000) throw new Error('--latency must be a number from 1 to 2000');
if (!Number.isFinite(jitterMs) || jitterMs < 0 || jitterMs > 2000) throw new Error('--jitter must be a number from 0 to 2000');

const options: BenchOptions = { quick: args.quick, latencyMs, jitterMs, inProcess: args['in-process'], log: benchLogger() };

type Scenario = { name: string; run: (sim: SimHandle) => Promise<ScenarioResult>; sim?: { extraProjects?: number } };

const SCENARIOS: Scenario[] = [
  { name: 'card', run: (sim) => cardScenario(sim, options) },
  { name: 'chart', run: (sim) => chartScenario(sim, options) },
  { name: 'burst', run: (sim) => burstScenario(sim, options) },
  { name: 'telegram', run: (sim) => telegramScenario(sim, options) },
  { name: 'digest', run: (sim) => digestScenario(sim, options), sim: { extraProjects: 1_000 } },
  { name: 'memory', run: (sim) => memoryScenario(sim, options) },
  { name: 'alerts', run: (sim) => alertsScenario(sim, options), sim: { extraProjects: 1_000 } },
  { name: 'exposure', run: (sim) => exposureScenario(sim, options) },
  { name: 'fanout', run: () => fanoutScenario(options) },
  {
    name: 'sim',
    run: async () => {
      const r = await simThroughput(options.quick ? 5_000 : 20_000);
      return {
        rows: [
          {
            metric: 'simulator throughput (in-process, no latency)',
            measured: `${Math.round(r.perSecond)} req/s`,
            target: '—',
            pass: null,
          },
        ],
        details: r,
      };
    },
  },
];
const SOAK: Scenario = { name: 'soak', run: (sim) => soakScenario(sim, options) };

const only = args.only ? new Set(args.only.split(',').map((s) => s.trim())) : null;
const selected = args.soak ? [SOAK] : SCENARIOS.filter((s) => !only || only.has(s.name));
if (only) for (const name of only) if (![...SCENARIOS, SOAK].some((s) => s.name === name)) throw new Error(`unknown scenario ${name}`);
if (only?.has('soak') && !args.soak) selected.push(SOAK);

const machine = {
  cpu: os.cpus()[0]?.model ?? 'unknown',
  cpus: os.cpus().length,
  memoryGb: Math.round(os.totalmem() / 1024 ** 3),
  platform: `${os.platform()} ${os.release()}`,
  node: process.version,
};

// Other work on the machine shows in every wall-clock figure: record how busy it was.
const loadAtStart = os.loadavg().map((l) => Number(l.toFixed(2)));
const rows: Row[] = [];
const results: Record<string, unknown> = {};
const notes: string[] = [];
const started = performance.now();
for (const scenario of selected) {
  const t0 = performance.now();
  process.stderr.write(`bench: ${scenario.name}...\n`);
  // A fresh simulator per scenario: counters, fault streams and connection state start clean.
  const sim = await startSim({ inProcess: options.inProcess, ...(scenario.sim ?? {}) });
  try {
    const r = await scenario.run(sim);
    rows.push(...r.rows);
    results[scenario.name] = { ...r.details, seconds: Number(((performance.now() - t0) / 1000).toFixed(1)) };
    if (r.notes) notes.push(...r.notes.map((n) => `${scenario.name}: ${n}`));
  } catch (err) {
    rows.push({
      metric: `${scenario.name}: failed`,
      measured: String((err as Error)?.message ?? err).slice(0, 120),
      target: '—',
      pass: false,
    });
    results[scenario.name] = { error: String((err as Error)?.stack ?? err) };
    process.stderr.write(`bench: ${scenario.name} failed: ${(err as Error)?.stack ?? err}\n`);
  } finally {
    await sim.close();
  }
}

printTable(rows);
for (const n of notes) console.log(`note: ${n}`);
const seconds = (performance.now() - started) / 1000;
console.log(
  `${args.quick ? 'quick' : 'full'}${args.soak ? ' soak' : ''} run, ${seconds.toFixed(0)} s; injected latency ${latencyMs} ms` +
    `${jitterMs ? ` + jitter ${jitterMs} ms` : ''}; simulator ${options.inProcess ? 'in-process' : 'in a child process'}; ` +
    `${machine.cpus} × ${machine.cpu}, ${machine.memoryGb} GB, Node ${machine.node}; load average ${loadAtStart[0]} at start, ${os.loadavg()[0]!.toFixed(2)} at end`,
);

const out = args.out ?? fileURLToPath(new URL('./results.json', import.meta.url));
writeFileSync(
  out,
  `${JSON.stringify(
    {
      at: new Date().toISOString(),
      mode: { quick: args.quick, soak: args.soak, latencyMs, jitterMs, simulator: options.inProcess ? 'in-process' : 'child' },
      machine: { ...machine, loadAverage: { atStart: loadAtStart, atEnd: os.loadavg().map((l) => Number(l.toFixed(2))) } },
      seconds: Number(seconds.toFixed(1)),
      table: rows,
      notes,
      scenarios: results,
    },
    null,
    2,
  )}\n`,
);
console.log(`results: ${out}`);
process.exit(rows.some((r) => r.metric.endsWith('failed')) ? 1 : 0);

function printTable(table: Row[]): void {
  const head = ['metric', 'measured', 'target', 'pass'];
  const body = table.map((r) => [r.metric, r.measured, r.target, r.pass === null ? '—' : r.pass ? 'pass' : 'FAIL']);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(head));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const b of body) console.log(line(b));
}
