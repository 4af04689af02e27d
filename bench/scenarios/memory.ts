/**
 * 10,000 mixed commands (cards, charts, compares, flags, lists, searches) over the whole universe,
 * a few at a time as a busy workspace sends them. Runs in a process of its own that holds polbot's
 * core and nothing of the benchmark's (no MCP client, no fakes), so RSS is the bot's. Heap is read
 * after a full collection at every tenth of the run; growth over the second half is what a leak
 * would show as, once the bounded caches have filled.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { forkChild } from '../lib/child.js';
import type { SimHandle } from '../lib/sim.js';
import { round } from '../lib/stats.js';
import type { BenchOptions, ScenarioResult } from '../lib/types.js';

export interface MemoryCheckpoint {
  done: number;
  heapMb: number;
  heapTotalMb: number;
  rssMb: number;
  externalMb: number;
  cHeapMb?: number;
  anonMb?: number;
  fileMb?: number;
}

export interface MemoryReport {
  commands: number;
  concurrency: number;
  seconds: number;
  atStart: { rssMb: number; heapMb: number; heapTotalMb: number; cHeapMb?: number; anonMb?: number; fileMb?: number };
  checkpoints: MemoryCheckpoint[];
  settled: Record<string, unknown>[];
  attribution: { dataCacheHeapMb: number; chartCacheExternalMb: number; heapWithoutCachesMb: number; rssWithoutCachesMb: number };
  replies: Record<string, number>;
  errors: string[];
  dataCache: unknown;
  chartCache: unknown;
}

/** The Node options the Docker image runs polbot with (its `NODE_OPTIONS`), so memory is measured as deployed. */
export function imageNodeOptions(): string[] {
  const dockerfile = readFileSync(fileURLToPath(new URL('../../Dockerfile', import.meta.url)), 'utf8');
  const m = /NODE_OPTIONS="([^"]*)"/.exec(dockerfile);
  return m?.[1] ? m[1].split(/\s+/).filter(Boolean) : [];
}

export async function memoryScenario(sim: SimHandle, o: BenchOptions): Promise<ScenarioResult> {
  const total = o.quick ? 1_000 : 10_000;
  await sim.setFaults({ latencyMs: o.latencyMs, jitterMs: o.jitterMs });
  // Measured as deployed: compiled JavaScript without the TypeScript loader, whose own thread
  // would add about 30 MB that production does not carry.
  // Inside the repository, so the compiled modules find node_modules.
  const scratch = fileURLToPath(new URL('../../.tmp/', import.meta.url));
  mkdirSync(scratch, { recursive: true });
  const out = mkdtempSync(join(scratch, 'bench-build-'));
  execFileSync(process.execPath, [fileURLToPath(new URL('../../scripts/build.mjs', import.meta.url)), '--outdir', out], {
    stdio: 'ignore',
  });
  const child = await forkChild<Record<string, never>>(
    join(out, 'bench', 'lib', 'memory-child.js'),
    [],
    ['--expose-gc', ...imageNodeOptions()],
    true,
  ).catch((err: unknown) => {
    rmSync(out, { recursive: true, force: true });
    throw err;
  });
  try {
    const { report } = (await child.call('run', { url: sim.url, apiKey: sim.apiKey, total })) as unknown as { report: MemoryReport };
    const steps = report.checkpoints.length;
    const half = report.checkpoints[steps / 2 - 1]!;
    const end = report.checkpoints[steps - 1]!;
    const growth = (end.heapMb - half.heapMb) / half.heapMb;
    const rssGrowth = (end.rssMb - half.rssMb) / half.rssMb;
    const settled = report.settled[report.settled.length - 1] as { rssMb: number } | undefined;
    const rss = settled?.rssMb ?? end.rssMb;
    return {
      rows: [
        {
          metric: `7. memory after ${total.toLocaleString('en-US')} mixed commands: RSS idle 2 s after (at last command) / heap`,
          measured: `${rss.toFixed(0)} MB (${end.rssMb.toFixed(0)} MB) / ${end.heapMb.toFixed(0)} MB`,
          target: 'RSS ≤ 250 MB',
          pass: rss <= 250,
        },
        {
          metric: '7. heap / RSS growth over the last half',
          measured: `${(growth * 100).toFixed(1)} % / ${(rssGrowth * 100).toFixed(1)} %`,
          target: 'heap < 10 %',
          pass: growth < 0.1,
        },
      ],
      details: {
        ...report,
        runtime: { compiled: true, nodeOptions: imageNodeOptions() },
        heapGrowthLastHalf: round(growth, 4),
        rssGrowthLastHalf: round(rssGrowth, 4),
      },
    };
  } finally {
    await child.close();
    rmSync(out, { recursive: true, force: true });
  }
}
