/**
 * Soak: 50 mixed commands a second, open loop (each starts on schedule whether or not earlier ones
 * have answered), for 60 s against an upstream where 10 % of requests fail: 500/503, 429 with
 * Retry-After, connection resets and truncated JSON. Counts what people would see go wrong (error
 * replies, exceptions) and whether the heap grows over the second half.
 */
import { benchCore } from '../lib/polbot.js';
import { profiled } from '../lib/profile.js';
import type { SimHandle } from '../lib/sim.js';
import { memory, round, sleep, summarize } from '../lib/stats.js';
import { fmtMs, type BenchOptions, type ScenarioResult } from '../lib/types.js';
import { mixedCommands, universe } from '../lib/workload.js';

const RATE_PER_SECOND = 50;
/** Together 10 % of upstream requests. */
const FAULTS = { errorRate: 0.05, rateLimitRate: 0.02, retryAfterSec: 1, resetRate: 0.02, malformedRate: 0.01 };

export async function soakScenario(sim: SimHandle, o: BenchOptions): Promise<ScenarioResult> {
  const seconds = o.quick ? 15 : 60;
  const total = seconds * RATE_PER_SECOND;
  const core = await benchCore(sim, o.log);
  try {
    const commands = mixedCommands(total, await universe(core), 23);
    await sim.setFaults({ latencyMs: o.latencyMs, jitterMs: o.jitterMs, ...FAULTS });
    await sim.resetCounter();

    const latencies: number[] = [];
    const errorReplies: Record<string, number> = {};
    const exceptions: string[] = [];
    const replies: Record<string, number> = {};
    const heap: { atSecond: number; heapMb: number; rssMb: number }[] = [];
    const started = performance.now();
    const sampler = setInterval(() => {
      void memory().then((m) =>
        heap.push({ atSecond: round((performance.now() - started) / 1000), heapMb: round(m.heapMb), rssMb: round(m.rssMb) }),
      );
    }, 5_000);
    const inflight: Promise<void>[] = [];
    await profiled('soak', async () => {
      for (let i = 0; i < total; i++) {
        // Open loop: command i starts at i / rate seconds, however the earlier ones are doing.
        const due = started + (i * 1000) / RATE_PER_SECOND;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        const text = commands[i]!;
        inflight.push(
          (async () => {
            const t0 = performance.now();
            try {
              const { reply } = await core.run(text);
              replies[reply.kind] = (replies[reply.kind] ?? 0) + 1;
              if (reply.kind === 'error') errorReplies[reply.message] = (errorReplies[reply.message] ?? 0) + 1;
            } catch (err) {
              exceptions.push(`${text}: ${String(err)}`);
            }
            latencies.push(performance.now() - t0);
          })(),
        );
      }
      await Promise.all(inflight);
    });
    clearInterval(sampler);
    const end = await memory();
    heap.push({ atSecond: round((performance.now() - started) / 1000), heapMb: round(end.heapMb), rssMb: round(end.rssMb) });
    const counter = await sim.counter();
    await sim.setFaults({ errorRate: 0, rateLimitRate: 0, resetRate: 0, malformedRate: 0 });

    const halfAt = heap.reduce(
      (best, h) => (Math.abs(h.atSecond - seconds / 2) < Math.abs(best.atSecond - seconds / 2) ? h : best),
      heap[0]!,
    );
    const growth = (end.heapMb - halfAt.heapMb) / halfAt.heapMb;
    const L = summarize(latencies);
    // A cache still filling towards its bound grows the heap without leaking: show how full it is.
    const stats = core.upstream.source.cache.stats();
    const cacheFill = `${(stats.bytes / 1048576).toFixed(0)} MB estimated, ${stats.entries} entries`;
    const errors = Object.values(errorReplies).reduce((a, b) => a + b, 0);
    // Some error replies are the right answer to what was typed ("compare X, X"); only upstream
    // failures that reached a person count against the soak.
    const upstreamErrors = Object.entries(errorReplies)
      .filter(([message]) => !/same entity|name at least|Unknown|Usage/i.test(message))
      .reduce((a, [, n]) => a + n, 0);
    return {
      rows: [
        {
          metric: `soak: ${total} cmds at ${RATE_PER_SECOND}/s, 10 % faults: errors seen by users`,
          measured: `${upstreamErrors} upstream-caused (${((upstreamErrors / total) * 100).toFixed(2)} %), ${exceptions.length} exceptions`,
          target: '0 exceptions',
          pass: exceptions.length === 0,
        },
        {
          metric: 'soak: command latency p50 / p99',
          measured: `${fmtMs(L.p50)} / ${fmtMs(L.p99)}`,
          target: '< 3 s (p99)',
          pass: L.p99 < 3000,
        },
        {
          metric: 'soak: heap growth over the last half (data cache fill at the end)',
          measured: `${(growth * 100).toFixed(1)} % (${halfAt.heapMb.toFixed(0)} → ${end.heapMb.toFixed(0)} MB; cache ${cacheFill})`,
          target: '< 10 %',
          pass: growth < 0.1,
        },
      ],
      details: {
        seconds,
        ratePerSecond: RATE_PER_SECOND,
        commands: total,
        faults: FAULTS,
        upstreamRequests: counter.total,
        replies,
        errorReplies,
        errorRepliesTotal: errors,
        upstreamCausedErrors: upstreamErrors,
        exceptions: exceptions.slice(0, 20),
        latencyMs: L,
        heap,
        heapGrowthLastHalf: round(growth, 4),
        cache: core.upstream.source.cache.stats(),
      },
    };
  } finally {
    await core.close();
  }
}
