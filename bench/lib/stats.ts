/** Nearest-rank percentile of a sample (p in 0..100); NaN for an empty sample. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

export interface Summary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  min: number;
  max: number;
  mean: number;
}

export function summarize(values: readonly number[]): Summary {
  const n = values.length;
  return {
    n,
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    p99: percentile(values, 99),
    min: n ? Math.min(...values) : Number.NaN,
    max: n ? Math.max(...values) : Number.NaN,
    mean: n ? values.reduce((a, b) => a + b, 0) / n : Number.NaN,
  };
}

export const round = (n: number, digits = 1): number => (Number.isFinite(n) ? Number(n.toFixed(digits)) : n);

/** Milliseconds taken by `fn`, with its result. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}

/** A deterministic shuffle (mulberry32), so every run issues the same workload in the same order. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  let a = seed >>> 0;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * Runs `tasks` with at most `limit` in flight; results in input order. Each task starts in its
 * own macrotask, as a command arriving on a socket does, not chained onto the last one's microtasks.
 */
export async function pooled<T, R>(tasks: readonly T[], limit: number, fn: (task: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      await new Promise<void>((resolve) => setImmediate(resolve));
      results[i] = await fn(tasks[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface MemorySample {
  rssMb: number;
  heapMb: number;
  heapTotalMb: number;
  externalMb: number;
}

/**
 * Heap and RSS in MB after a full collection (the process runs with --expose-gc). Native memory
 * held by collected objects (canvas pixel buffers) is released by finalizers that Node runs only
 * once the event loop turns, so the loop turns between two collections: what is read is memory
 * still in use or retained, not garbage waiting for its finalizer.
 */
export async function memory(): Promise<MemorySample> {
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < 2; i++) {
    gc?.();
    for (let k = 0; k < 3; k++) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  const m = process.memoryUsage();
  const mb = (b: number) => b / (1024 * 1024);
  return { rssMb: mb(m.rss), heapMb: mb(m.heapUsed), heapTotalMb: mb(m.heapTotal), externalMb: mb(m.external) };
}
