// Run by no-system-fonts.test.ts in a mount namespace where the system font directories are empty.
import { GlobalFonts } from '@napi-rs/canvas';
import { createChartRenderer } from '../../../src/charts/index.js';
import { decode, differingPixels, inkPixels, polPoints } from '../../helpers/charts.js';

const systemFamilies = GlobalFonts.families.length;
const renderer = createChartRenderer({ renderer: 'local', quickchartUrl: 'https://quickchart.io' });
const spec = { kind: 'pol' as const, entityName: 'Bitcoin', range: '90d', points: polPoints(90) };
const a = await renderer.render(spec);
const b = await renderer.render({ ...spec, title: '' });
if (a.kind !== 'png' || b.kind !== 'png') throw new Error('expected PNGs');
const withTitle = await decode(a.png);
const without = await decode(b.png);
process.stdout.write(
  JSON.stringify({
    systemFamilies,
    families: GlobalFonts.families.map((f) => f.family),
    titleDiff: differingPixels(withTitle, without, 0, 110, 0, 900),
    // Y-axis tick labels: text only, left of the plot.
    tickInk: inkPixels(withTitle, 220, 700, 0, 110),
  }),
);
