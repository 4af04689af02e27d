/**
 * One 365-point PoL chart drawn to PNG at the size every adapter posts (the renderer's default:
 * 800 × 400 CSS pixels at pixel ratio 2, a 1600 × 800 PNG), with the image cache cleared each time.
 */
import { RestSource } from '../../src/api/rest/source.js';
import { createChartRenderer, type ChartSpec } from '../../src/charts/index.js';
import { profiled } from '../lib/profile.js';
import type { SimHandle } from '../lib/sim.js';
import { summarize, timed } from '../lib/stats.js';
import { fmtMs, type BenchOptions, type ScenarioResult } from '../lib/types.js';

const ENTITIES = ['bitcoin', 'solana', 'aave', 'pepe'];

export async function chartScenario(sim: SimHandle, o: BenchOptions): Promise<ScenarioResult> {
  const rest = new RestSource({ baseUrl: sim.url, apiKey: sim.apiKey });
  const series = await Promise.all(
    ENTITIES.map(async (slug) => ({ slug, points: (await rest.polChart('project', slug, 365)).data.slice(-365) })),
  );
  await rest.close();
  if (series.some((s) => s.points.length !== 365)) throw new Error('expected 365 daily points');

  const renderer = createChartRenderer({ renderer: 'local', quickchartUrl: 'https://quickchart.io' });
  const specOf = (i: number): ChartSpec => {
    const s = series[i % series.length]!;
    return { kind: 'pol', entityName: s.slug, range: '365d', simulated: true, cacheKey: `project:${s.slug}`, points: s.points };
  };
  const warmup = 5;
  const samples = o.quick ? 30 : 120;
  const times: number[] = [];
  const cpu: number[] = [];
  let bytes = 0;
  let size = '';
  await profiled('chart', async () => {
    for (let i = 0; i < warmup + samples; i++) {
      renderer.clear();
      const cpu0 = process.cpuUsage();
      const { ms, value } = await timed(() => renderer.render(specOf(i)));
      const used = process.cpuUsage(cpu0);
      if (value.kind !== 'png') throw new Error('expected a PNG');
      if (i >= warmup) {
        times.push(ms);
        cpu.push((used.user + used.system) / 1000);
      }
      bytes = value.png.length;
      size = `${value.width * value.pixelRatio}×${value.height * value.pixelRatio}`;
    }
  });
  const s = summarize(times);
  // CPU time is what the render costs whatever else the machine runs; wall time is what waits.
  const c = summarize(cpu);
  return {
    rows: [
      {
        metric: `4. chart render, 365-point PoL, ${size} PNG: p50 / p95 (CPU p50)`,
        measured: `${fmtMs(s.p50)} / ${fmtMs(s.p95)} (${fmtMs(c.p50)})`,
        target: '≤ 25 ms',
        pass: s.p50 <= 25,
      },
    ],
    details: { renderMs: s, cpuMs: c, pngBytes: bytes, pixels: size, points: 365 },
  };
}
