import { GlobalFonts, createCanvas } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { createChartRenderer, type ChartImage, type ChartSpec } from '../../../src/charts/index.js';
import { CHART_FONT_FAMILY, ensureChartFont } from '../../../src/charts/font.js';
import { pngSize } from '../../../src/charts/png.js';
import { categoryPoints, decode, differingPixels, inkPixels, polPoints, reservesPoints, valuePoints } from '../../helpers/charts.js';

const local = () => createChartRenderer({ renderer: 'local', quickchartUrl: 'https://quickchart.io' });
const png = (image: ChartImage) => {
  if (image.kind !== 'png') throw new Error('expected a PNG');
  return image;
};
const pol: ChartSpec = {
  kind: 'pol',
  entityName: 'Bitcoin',
  range: '90d',
  simulated: true,
  points: polPoints(90),
  cacheKey: 'project:bitcoin',
};

describe('local renderer', () => {
  it('draws a 1600x800 PNG (800x400 at pixel ratio 2) that decodes', async () => {
    const image = png(await local().render(pol));
    expect(image).toMatchObject({ width: 800, height: 400, pixelRatio: 2, filename: 'project-bitcoin-pol-90d.png' });
    expect(pngSize(image.png)).toEqual({ width: 1600, height: 800 });
    const pixels = await decode(image.png);
    expect([pixels.width, pixels.height]).toEqual([1600, 800]);
    expect(image.alt).toMatch(/^PoL of Bitcoin over 90 days: from .+% to .+%, lower is safer\. Simulated data\.$/);
    // A white card: the corners are background, the plot has ink.
    expect(inkPixels(pixels, 790, 800, 1590, 1600)).toBe(0);
    expect(inkPixels(pixels, 200, 700, 200, 1500)).toBeGreaterThan(1000);
  });

  it('draws a year of GitHub commits as a wide, short grid: the image is cut to it, with no blank half', async () => {
    const weeks = Array.from({ length: 52 }, (_, w) => Array.from({ length: 7 }, (_, d) => (w * 7 + d) % 5));
    const image = png(
      await local().render({ kind: 'heatmap', entityName: 'Uniswap', range: '52w', simulated: true, weeks, cacheKey: 'project:uniswap' }),
    );
    expect(image.width).toBe(800);
    expect(image.height).toBeLessThan(300);
    const size = pngSize(image.png)!;
    expect(size).toEqual({ width: 1600, height: image.height * 2 });
    const pixels = await decode(image.png);
    // Cells run to the last rows of the image, bar the week labels under them.
    expect(inkPixels(pixels, size.height - 160, size.height - 100, 200, 1500)).toBeGreaterThan(1000);
  });

  it('draws the title as text: removing it changes the top band', async () => {
    const renderer = local();
    const withTitle = await decode(png(await renderer.render(pol)).png);
    const without = await decode(png(await renderer.render({ ...pol, title: '' })).png);
    // The title occupies roughly the top 60 CSS px (120 device px).
    const changed = differingPixels(withTitle, without, 0, 110, 0, 900);
    expect(changed).toBeGreaterThan(2000);
    expect(inkPixels(withTitle, 20, 70, 20, 700)).toBeGreaterThan(1500);
  });

  it('draws a "No data" chart for an empty series instead of failing', async () => {
    const renderer = local();
    const image = png(await renderer.render({ ...pol, points: [] }));
    expect(image.alt).toContain('no data for this period');
    const pixels = await decode(image.png);
    expect([pixels.width, pixels.height]).toEqual([1600, 800]);
    // The message sits mid-card; no line or axis anywhere below it.
    expect(inkPixels(pixels, 300, 460, 400, 1200)).toBeGreaterThan(1500);
    expect(inkPixels(pixels, 560, 800)).toBe(0);
    const points = await decode(png(await renderer.render({ ...pol, points: [{ timestamp: 1, pol: Number.NaN }] })).png);
    expect(differingPixels(pixels, points, 0, 800)).toBe(0);
  });

  it('renders every chart kind', async () => {
    const renderer = local();
    const all: ChartSpec[] = [
      pol,
      {
        kind: 'categories',
        entityName: 'Bitcoin',
        range: '90d',
        points: categoryPoints(90, ['security', 'financial', 'operational', 'reputational', 'regulatory']),
      },
      { kind: 'categories', entityName: 'Binance', range: '30d', points: categoryPoints(30, ['security', 'transparency', 'solvency']) },
      { kind: 'reserves', entityName: 'Binance', range: '365d', points: reservesPoints(365) },
      { kind: 'inflation', entityName: 'Bitcoin', range: '30d', points: valuePoints(30, 1.5, 0.4) },
      { kind: 'voice', entityName: 'Bitcoin', range: '180d', points: valuePoints(180, 70, 8) },
      {
        kind: 'watchlist',
        listName: 'Risk desk',
        range: '30d',
        simulated: true,
        series: Array.from({ length: 14 }, (_, i) => ({
          name: `Entity ${i}`,
          points: polPoints(30, i).map((p) => ({ ...p, pol: p.pol * (i + 1) ** 2 })),
        })),
      },
    ];
    for (const spec of all) {
      const image = png(await renderer.render(spec));
      expect(pngSize(image.png), spec.kind).toEqual({ width: 1600, height: 800 });
      const pixels = await decode(image.png);
      expect(inkPixels(pixels, 200, 700, 200, 1500), spec.kind).toBeGreaterThan(500);
      expect(image.alt.length, spec.kind).toBeGreaterThan(20);
    }
    expect(renderer.stats().renders).toBe(all.length);
  });

  it('honours a custom size and pixel ratio', async () => {
    const renderer = createChartRenderer({
      renderer: 'local',
      quickchartUrl: 'https://quickchart.io',
      width: 600,
      height: 300,
      pixelRatio: 1,
    });
    const image = png(await renderer.render(pol));
    expect(pngSize(image.png)).toEqual({ width: 600, height: 300 });
  });
});

describe('render cache', () => {
  it('returns the cached Buffer for the same spec without drawing again', async () => {
    const renderer = local();
    const first = png(await renderer.render(pol));
    const second = png(await renderer.render({ ...pol, points: [...pol.points] }));
    expect(second.png).toBe(first.png);
    expect(renderer.stats()).toMatchObject({ renders: 1, cacheHits: 1 });
    expect(renderer.stats().cachedBytes).toBe(first.png.length);
  });

  it('draws once for concurrent requests of the same chart', async () => {
    const renderer = local();
    const images = await Promise.all([renderer.render(pol), renderer.render(pol), renderer.render(pol)]);
    expect(new Set(images.map((i) => png(i).png)).size).toBe(1);
    expect(renderer.stats().renders).toBe(1);
  });

  it('draws again when the data, range, entity or flag changes', async () => {
    const renderer = local();
    await renderer.render(pol);
    const newer = [...pol.points.slice(1), { timestamp: pol.points.at(-1)!.timestamp + 86_400, pol: 0.003 }];
    const revised = pol.points.map((p, i) => (i === 10 ? { ...p, pol: p.pol + 0.0001 } : p));
    await renderer.render({ ...pol, points: newer });
    await renderer.render({ ...pol, points: revised });
    await renderer.render({ ...pol, range: '30d' });
    await renderer.render({ ...pol, cacheKey: 'exchange:bitcoin' });
    await renderer.render({ ...pol, simulated: false });
    expect(renderer.stats()).toMatchObject({ renders: 6, cacheHits: 0 });
  });

  it('stays within its byte budget', async () => {
    const renderer = createChartRenderer({ renderer: 'local', quickchartUrl: 'https://quickchart.io', cacheMaxBytes: 300_000 });
    for (let i = 0; i < 6; i++) await renderer.render({ ...pol, points: polPoints(90, i) });
    expect(renderer.stats().cachedBytes).toBeLessThanOrEqual(300_000);
    expect(renderer.stats().cachedBytes).toBeGreaterThan(0);
  });
});

describe('chart font', () => {
  it('registers the shipped font once under its family name', () => {
    expect(ensureChartFont()).toBe(CHART_FONT_FAMILY);
    ensureChartFont();
    const family = GlobalFonts.families.find((f) => f.family === CHART_FONT_FAMILY);
    expect(family?.styles.map((s) => s.weight).sort()).toEqual([400, 600]);
  });

  it('draws text with it', () => {
    ensureChartFont();
    const canvas = createCanvas(240, 40);
    const ctx = canvas.getContext('2d');
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, 240, 40);
    ctx.fillStyle = '#000';
    ctx.font = `20px ${CHART_FONT_FAMILY}`;
    ctx.fillText('Bitcoin 1.23%', 4, 28);
    const data = ctx.getImageData(0, 0, 240, 40).data;
    let ink = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i]! < 128) ink++;
    expect(ink).toBeGreaterThan(150);
    // Inter's advance widths, not a fallback face's.
    expect(ctx.measureText('Bitcoin 1.23%').width).toBeCloseTo(128.1, 0);
  });
});
