import { describe, expect, it } from 'vitest';
import { ChartRenderError, createChartRenderer, type ChartImage, type ChartSpec } from '../../src/charts/index.js';
import { categoryPoints, polPoints } from './helpers.js';

const url = (image: ChartImage) => {
  if (image.kind !== 'url') throw new Error('expected a URL');
  return image;
};
const pol: ChartSpec = { kind: 'pol', entityName: 'Bitcoin', range: '90d', simulated: true, points: polPoints(90) };

type Evaluated = {
  type: string;
  data: { labels: string[]; datasets: { data: number[]; label: string }[] };
  options: {
    plugins: { title: { text: string }; subtitle: { text: string } };
    scales: { y: { ticks: { callback: (v: number, i: number, t: { value: number }[]) => string } } };
  };
};
/** QuickChart evaluates `c` as JavaScript; so does this. */
const chartOf = (u: URL) => new Function(`return (${u.searchParams.get('c')});`)() as Evaluated;

describe('QuickChart renderer', () => {
  it('builds a Chart.js 4 URL on the configured host with size and pixel ratio', async () => {
    const renderer = createChartRenderer({ renderer: 'quickchart', quickchartUrl: 'https://quickchart.io' });
    const image = url(await renderer.render(pol));
    const u = new URL(image.url);
    expect(u.protocol).toBe('https:');
    expect(u.host).toBe('quickchart.io');
    expect(u.pathname).toBe('/chart');
    expect(u.searchParams.get('v')).toBe('4');
    expect(u.searchParams.get('w')).toBe('800');
    expect(u.searchParams.get('h')).toBe('400');
    expect(u.searchParams.get('devicePixelRatio')).toBe('2');
    expect(u.searchParams.get('bkg')).toBe('#ffffff');
    expect(image).toMatchObject({ width: 800, height: 400 });
    expect(image.alt).toMatch(/^PoL of Bitcoin over 90 days: .*lower is safer\. Simulated data\.$/);
  });

  it('uses a self-hosted base URL, scheme, port and path prefix included', async () => {
    const internal = url(await createChartRenderer({ renderer: 'quickchart', quickchartUrl: 'http://charts.internal:3400' }).render(pol));
    expect(internal.url.startsWith('http://charts.internal:3400/chart?')).toBe(true);
    const prefixed = url(await createChartRenderer({ renderer: 'quickchart', quickchartUrl: 'https://proxy.example/quickchart/' }).render(pol));
    expect(prefixed.url.startsWith('https://proxy.example/quickchart/chart?')).toBe(true);
  });

  it('encodes the data, title and a percentage formatter that works on the server', async () => {
    const image = url(await createChartRenderer({ renderer: 'quickchart', quickchartUrl: 'https://quickchart.io' }).render(pol));
    const chart = chartOf(new URL(image.url));
    expect(chart.type).toBe('line');
    expect(chart.options.plugins.title.text).toBe('Bitcoin · PoL, 90 days');
    expect(chart.options.plugins.subtitle.text).toContain('SIMULATED DATA');
    const data = chart.data.datasets[0]!.data;
    expect(data[0]).toBeCloseTo(pol.points[0]!.pol, 5);
    expect(data.at(-1)).toBeCloseTo(pol.points.at(-1)!.pol, 5);
    expect(chart.data.labels).toHaveLength(data.length);
    expect(chart.data.labels.filter(Boolean).length).toBeGreaterThan(3);
    const ticks = [0.001, 0.0015, 0.002].map((value) => ({ value }));
    expect(chart.options.scales.y.ticks.callback(0.0015, 1, ticks)).toBe('0.15%');
  });

  it('keeps a single-line chart within chat platforms’ image URL limits', async () => {
    const renderer = createChartRenderer({ renderer: 'quickchart', quickchartUrl: 'https://quickchart.io' });
    const long = url(await renderer.render({ ...pol, range: '365d', points: polPoints(365) }));
    expect(long.url.length).toBeLessThanOrEqual(3000);
  });

  it('caches URLs like PNGs', async () => {
    const renderer = createChartRenderer({ renderer: 'quickchart', quickchartUrl: 'https://quickchart.io' });
    const a = await renderer.render(pol);
    const b = await renderer.render(pol);
    expect(b).toBe(a);
    expect(renderer.stats()).toMatchObject({ renders: 1, cacheHits: 1 });
    const categories = url(await renderer.render({ kind: 'categories', entityName: 'Binance', range: '30d', points: categoryPoints(30, ['security', 'transparency', 'solvency']) }));
    expect(chartOf(new URL(categories.url)).data.datasets.map((d) => d.label)).toEqual(['Security', 'Transparency', 'Solvency']);
  });

  it('refuses a base URL that is not http(s) at creation', () => {
    expect(() => createChartRenderer({ renderer: 'quickchart', quickchartUrl: 'not a url' })).toThrow(ChartRenderError);
    expect(() => createChartRenderer({ renderer: 'quickchart', quickchartUrl: 'ftp://charts' })).toThrow(/http/);
    expect(() => createChartRenderer({ renderer: 'local', quickchartUrl: 'not a url' })).not.toThrow();
  });
});
