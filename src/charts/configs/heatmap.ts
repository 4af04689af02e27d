import { portable } from '../portable.js';
import { formatPlain } from '../format.js';
import {
  altSuffix,
  background,
  chartHeading,
  INK,
  noDataChart,
  still,
  subtitlePlugin,
  subtitleText,
  tickFont,
  titlePlugin,
  type BuiltChart,
  type ChartTextOptions,
} from './common.js';

/**
 * A project's GitHub activity as the familiar grid: one column a week (oldest on the left), one
 * row a day, each square shaded by that day's commits. Drawn as square points on a line chart
 * without its line, so that both renderers draw it with Chart.js alone.
 */

const SHADES = ['#ebedf0', '#9be9a8', '#40c463', '#30a14e', '#216e39'];
const DAYS = 7;

const DAY_TICK_SOURCE = `function (v) { return ["", "Sat", "", "Thu", "", "Tue", ""][v] || ""; }`;
const dayTick = portable((value: number | string) => ['', 'Sat', '', 'Thu', '', 'Tue', ''][Number(value)] ?? '', DAY_TICK_SOURCE);

/** "52 weeks ago" under the first column, "this week" under the last. The count is ours, never upstream text. */
function weekTick(weeks: number) {
  const first = `${weeks - 1} week${weeks - 1 === 1 ? '' : 's'} ago`;
  const source = `function (v) { return v === 0 ? ${JSON.stringify(first)} : v === ${weeks - 1} ? "this week" : ""; }`;
  return portable((value: number | string) => (Number(value) === 0 ? first : Number(value) === weeks - 1 ? 'this week' : ''), source);
}

export function describeHeatmapChart(weeks: readonly (readonly number[])[], opts: ChartTextOptions): BuiltChart {
  const { title, name } = chartHeading(opts, 'GitHub commits', 'this project');
  const clean = (Array.isArray(weeks) ? weeks : [])
    .filter((w) => Array.isArray(w))
    .map((w) => Array.from({ length: DAYS }, (_, d) => (typeof w[d] === 'number' && Number.isFinite(w[d]) && w[d]! > 0 ? w[d]! : 0)));
  if (clean.length === 0) return noDataChart(title, `GitHub commits of ${name}`, opts.simulated);
  const counts = clean.flat();
  const most = Math.max(1, ...counts);
  const total = counts.reduce((a, b) => a + b, 0);
  const shade = (v: number) => (v === 0 ? SHADES[0]! : SHADES[Math.min(4, 1 + Math.floor((v / most) * 3.999))]!);
  // Day 0 (the first of each week) at the top, as GitHub shows it.
  const points = clean.flatMap((week, x) => week.map((v, d) => ({ x, y: DAYS - 1 - d, v })));
  // Chart.js lays out an 800 × 400 chart (drawn at 2×): about 720 px of plot across, 300 down.
  // Square cells with a small gap; the plot is held to seven cells high, so rows are not spread apart.
  const cell = Math.min(720 / clean.length, 36);
  // A 'rect' point is radius × √2 wide.
  const radius = Math.max(1.5, (cell * 0.82) / Math.SQRT2);
  const plotHeight = DAYS * cell + 34;
  // The image is cut to the grid (see heightShare) rather than padded out to 400 px.
  const spare = Math.max(0, 300 - plotHeight - 10);
  const layout = { padding: { top: 14, right: 22, bottom: 10, left: 14 } };
  const weeksLabel = `${clean.length} week${clean.length === 1 ? '' : 's'}`;
  return {
    config: {
      type: 'line',
      data: {
        datasets: [
          {
            label: 'Commits',
            data: points.map((p) => ({ x: p.x, y: p.y })) as never,
            showLine: false,
            pointStyle: 'rect',
            pointRadius: radius,
            pointBorderWidth: 0,
            pointBackgroundColor: points.map((p) => shade(p.v)),
          },
        ],
      },
      plugins: [background],
      options: {
        ...still(),
        layout,
        plugins: {
          title: titlePlugin(title),
          subtitle: subtitlePlugin(
            subtitleText(
              [
                `Commits a day over the last ${weeksLabel}: ${formatPlain(total)} in all, ${formatPlain(most)} on the busiest day; darker is more`,
              ],
              opts.simulated,
            ),
          ),
          legend: { display: false },
          tooltip: { enabled: false },
        },
        scales: {
          x: {
            type: 'linear',
            min: -1,
            max: clean.length,
            grid: { display: false },
            border: { display: false },
            ticks: {
              stepSize: 1,
              maxTicksLimit: clean.length + 2,
              autoSkip: false,
              maxRotation: 0,
              color: INK.muted,
              font: tickFont,
              callback: weekTick(clean.length),
            },
          },
          y: {
            type: 'linear',
            min: -0.7,
            max: DAYS - 0.3,
            grid: { display: false },
            border: { display: false },
            ticks: { stepSize: 1, color: INK.muted, font: tickFont, callback: dayTick },
          },
        },
      },
    },
    alt: `GitHub commits of ${name}, a day at a time over the last ${weeksLabel}: ${formatPlain(total)} commits, at most ${formatPlain(most)} in a day.${altSuffix(opts.simulated)}`,
    empty: false,
    heightShare: (400 - spare) / 400,
  };
}
