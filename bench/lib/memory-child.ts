/** The memory scenario's process: polbot's core and the workload driver, nothing else. */
import { readFileSync } from 'node:fs';
import type { Core } from '../../commands/core/core.js';
import { serveParent } from './child.js';
import { benchCore, benchLogger } from './polbot.js';
import { profiled } from './profile.js';
import type { SimHandle } from './sim.js';
import { memory, pooled, round } from './stats.js';
import { mixedCommands, universe } from './workload.js';
import type { MemoryCheckpoint, MemoryReport } from '../scenarios/memory.js';

const CONCURRENCY = 16;

/**
 * Resident memory by kind of mapping (Linux): the C heap (glibc's main arena: native allocations
 * such as Skia's), other anonymous memory (V8's heap pages, thread arenas, large buffers) and files.
 */
function mappings(): { cHeapMb: number; anonMb: number; fileMb: number } | undefined {
  let text: string;
  try {
    text = readFileSync('/proc/self/smaps', 'utf8');
  } catch {
    return undefined;
  }
  let kind: 'cHeap' | 'anon' | 'file' = 'anon';
  const kb = { cHeap: 0, anon: 0, file: 0 };
  for (const line of text.split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const name = head[1]!.trim();
      kind = name === '[heap]' ? 'cHeap' : name === '' || name.startsWith('[') ? 'anon' : 'file';
    } else if (line.startsWith('Rss:')) kb[kind] += Number(line.split(/\s+/)[1]);
  }
  return { cHeapMb: round(kb.cHeap / 1024), anonMb: round(kb.anon / 1024), fileMb: round(kb.file / 1024) };
}
const STEPS = 10;

async function run(url: string, apiKey: string, total: number): Promise<MemoryReport> {
  const atStart = await memory();
  const startMappings = mappings();
  const log = benchLogger();
  const core: Core = await benchCore({ url, apiKey } as SimHandle, log);
  try {
    const commands = mixedCommands(total, await universe(core), 11);
    const checkpoints: MemoryCheckpoint[] = [];
    const replies: Record<string, number> = {};
    const errors: string[] = [];
    const started = performance.now();
    await profiled('memory', async () => {
      for (let step = 0; step < STEPS; step++) {
        const slice = commands.slice((step * total) / STEPS, ((step + 1) * total) / STEPS);
        await pooled(slice, CONCURRENCY, async (text) => {
          const { reply } = await core.run(text);
          replies[reply.kind] = (replies[reply.kind] ?? 0) + 1;
          if (reply.kind === 'error' && errors.length < 20) errors.push(`${text}: ${reply.message}`);
        });
        const m = await memory();
        checkpoints.push({
          done: ((step + 1) * total) / STEPS,
          heapMb: round(m.heapMb),
          heapTotalMb: round(m.heapTotalMb),
          rssMb: round(m.rssMb),
          externalMb: round(m.externalMb),
          ...mappings(),
        });
      }
    });
    const end = await memory();
    const dataCache = core.upstream.source.cache.stats();
    const chartCache = (core.charts as { stats?: () => unknown }).stats?.();
    // The same process a second later, idle: V8 and the allocator give back what the burst left.
    const settled: Record<string, unknown>[] = [];
    for (let i = 0; i < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const m = await memory();
      settled.push({
        afterMs: (i + 1) * 500,
        rssMb: round(m.rssMb),
        heapTotalMb: round(m.heapTotalMb),
        externalMb: round(m.externalMb),
        ...mappings(),
      });
    }
    // What the bounded caches account for: memory after dropping each of them.
    core.upstream.source.cache.clear();
    const withoutData = await memory();
    (core.charts as { clear?: () => void }).clear?.();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const withoutCharts = await memory();
    const attribution = {
      dataCacheHeapMb: round(end.heapMb - withoutData.heapMb),
      chartCacheExternalMb: round(withoutData.externalMb - withoutCharts.externalMb),
      heapWithoutCachesMb: round(withoutCharts.heapMb),
      rssWithoutCachesMb: round(withoutCharts.rssMb),
    };
    return {
      commands: total,
      concurrency: CONCURRENCY,
      seconds: round((performance.now() - started) / 1000),
      atStart: { rssMb: round(atStart.rssMb), heapMb: round(atStart.heapMb), heapTotalMb: round(atStart.heapTotalMb), ...startMappings },
      checkpoints,
      settled,
      attribution,
      replies,
      errors,
      dataCache,
      chartCache,
    };
  } finally {
    await core.close();
  }
}

serveParent(
  {},
  async (msg) => {
    if (msg.op !== 'run') throw new Error(`unknown op ${msg.op}`);
    return { report: await run(msg.url as string, msg.apiKey as string, msg.total as number) };
  },
  async () => undefined,
);
