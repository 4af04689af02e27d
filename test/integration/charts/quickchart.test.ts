import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodePng } from '../../../src/charts/png.js';
import { ChartRenderError, createChartRenderer, type ChartImage, type ChartSpec } from '../../../src/charts/index.js';
import { categoryPoints, polPoints } from '../../helpers/charts.js';

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

/** A Slack-only deployment may hand out URLs up to Slack's limit; these tests read the URLs themselves. */
const SLACK_MAX_URL = 3_000;

describe('QuickChart renderer', () => {
  it('builds a Chart.js 4 URL on the configured host with size and pixel ratio', async () => {
    const renderer = createChartRenderer({ renderer: 'quickchart', quickchartUrl: 'https://quickchart.io', maxImageUrl: SLACK_MAX_URL });
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
    const internal = url(
      await createChartRenderer({
        renderer: 'quickchart',
        quickchartUrl: 'http://charts.internal:3400',
        maxImageUrl: SLACK_MAX_URL,
      }).render(pol),
    );
    expect(internal.url.startsWith('http://charts.internal:3400/chart?')).toBe(true);
    const prefixed = url(
      await createChartRenderer({
        renderer: 'quickchart',
        quickchartUrl: 'https://proxy.example/quickchart/',
        maxImageUrl: SLACK_MAX_URL,
      }).render(pol),
    );
    expect(prefixed.url.startsWith('https://proxy.example/quickchart/chart?')).toBe(true);
  });

  it('encodes the data, title and a percentage formatter that works on the server', async () => {
    const image = url(
      await createChartRenderer({ renderer: 'quickchart', quickchartUrl: 'https://quickchart.io', maxImageUrl: SLACK_MAX_URL }).render(pol),
    );
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
    const renderer = createChartRenderer({ renderer: 'quickchart', quickchartUrl: 'https://quickchart.io', maxImageUrl: SLACK_MAX_URL });
    const long = url(await renderer.render({ ...pol, range: '365d', points: polPoints(365) }));
    expect(long.url.length).toBeLessThanOrEqual(3000);
  });

  it('caches URLs like PNGs', async () => {
    // Long enough for three series in a URL, which this test reads back.
    const renderer = createChartRenderer({ renderer: 'quickchart', quickchartUrl: 'https://quickchart.io', maxImageUrl: 20_000 });
    const a = await renderer.render(pol);
    const b = await renderer.render(pol);
    expect(b).toBe(a);
    expect(renderer.stats()).toMatchObject({ renders: 1, cacheHits: 1 });
    const categories = url(
      await renderer.render({
        kind: 'categories',
        entityName: 'Binance',
        range: '30d',
        points: categoryPoints(30, ['security', 'transparency', 'solvency']),
      }),
    );
    expect(chartOf(new URL(categories.url)).data.datasets.map((d) => d.label)).toEqual(['Security', 'Transparency', 'Solvency']);
  });

  it('refuses a base URL that is not http(s) at creation', () => {
    expect(() => createChartRenderer({ renderer: 'quickchart', quickchartUrl: 'not a url' })).toThrow(ChartRenderError);
    expect(() => createChartRenderer({ renderer: 'quickchart', quickchartUrl: 'ftp://charts' })).toThrow(/http/);
    expect(() => createChartRenderer({ renderer: 'local', quickchartUrl: 'not a url' })).not.toThrow();
  });
});

describe('QuickChart renderer, for charts too long for an image URL', () => {
  // A stand-in QuickChart on loopback: POST /chart answers with whatever the test sets.
  let server: Server;
  let base: string;
  let answer: { status: number; body: Buffer } = { status: 200, body: Buffer.alloc(0) };
  const received: { path: string; body: Record<string, unknown> }[] = [];
  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({
          path: `${req.method} ${req.url}`,
          body: JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>,
        });
        res.writeHead(answer.status, { 'content-type': 'image/png' }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const names = ['Bitcoin', 'Ethereum', 'Binance', 'Kraken', 'Solana', 'Uniswap', 'Aave', 'Lido DAO'];
  const watchlist: ChartSpec = {
    kind: 'watchlist',
    listName: 'Digest #7',
    range: '30d',
    simulated: true,
    series: names.map((name, i) => ({ name, points: polPoints(30, i) })),
  };

  it('asks QuickChart for the PNG by POST and hands it over to be uploaded', async () => {
    const png = await encodePng(new Uint8Array(4 * 4 * 4).fill(255), 4, 4);
    answer = { status: 200, body: png };
    received.length = 0;
    const image = await createChartRenderer({ renderer: 'quickchart', quickchartUrl: base }).render(watchlist);
    expect(image.kind).toBe('png');
    if (image.kind !== 'png') return;
    expect(image.png.equals(png)).toBe(true);
    expect(image.filename).toMatch(/\.png$/);
    expect(received).toHaveLength(1);
    expect(received[0]!.path).toBe('POST /chart');
    expect(received[0]!.body).toMatchObject({ width: 800, height: 400, devicePixelRatio: 2, format: 'png', version: '4' });
    // Every watched name is in the chart QuickChart was asked to draw.
    for (const name of names) expect(String(received[0]!.body.chart)).toContain(name);
  });

  it('hands out no URL longer than Discord takes: a single-line chart over 2,000 characters comes as PNG too', async () => {
    answer = { status: 200, body: await encodePng(new Uint8Array(4 * 4 * 4).fill(255), 4, 4) };
    received.length = 0;
    const image = await createChartRenderer({ renderer: 'quickchart', quickchartUrl: base }).render({
      ...pol,
      range: '365d',
      points: polPoints(365),
    });
    expect(image.kind).toBe('png');
    expect(received).toHaveLength(1);
    // Within the limit it stays a URL, and QuickChart is not asked for anything.
    received.length = 0;
    const short = url(await createChartRenderer({ renderer: 'quickchart', quickchartUrl: base, maxImageUrl: SLACK_MAX_URL }).render(pol));
    expect(short.url.length).toBeLessThanOrEqual(SLACK_MAX_URL);
    expect(received).toHaveLength(0);
  });

  it('fails as a chart error, never with the body, when QuickChart answers an error or something that is not a PNG', async () => {
    answer = { status: 500, body: Buffer.from('<html>boom</html>') };
    await expect(createChartRenderer({ renderer: 'quickchart', quickchartUrl: base }).render(watchlist)).rejects.toThrow(
      /^QuickChart answered 500$/,
    );
    answer = { status: 200, body: Buffer.from('<html>not a chart</html>') };
    const err = await createChartRenderer({ renderer: 'quickchart', quickchartUrl: base })
      .render(watchlist)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChartRenderError);
    expect(String((err as Error).message)).toBe('QuickChart did not answer with a PNG');
  });
});
