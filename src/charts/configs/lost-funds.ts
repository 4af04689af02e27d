import { formatPlain, formatUsd } from '../format.js';
import {
  altSuffix,
  background,
  INK,
  noDataChart,
  SERIES_COLOR,
  still,
  subtitlePlugin,
  subtitleText,
  tickFont,
  titlePlugin,
  usdTickCallback,
  type BuiltChart,
  type ChartTextOptions,
} from './common.js';

/** One year of funds lost at exchanges: the amount in USD and how many incidents it came from. */
export interface LostFundsYear {
  year: number;
  amountUsd: number;
  incidents: number;
}

/**
 * Funds lost at exchanges, a bar a year: amounts per year are totals, not a level that moves, so
 * they are drawn as bars rather than a line. Drawn with Chart.js's bar type, which both renderers know.
 */
export function describeLostFundsChart(years: readonly LostFundsYear[], opts: ChartTextOptions): BuiltChart {
  const title = opts.title ?? 'Funds lost at exchanges, by year';
  const clean = (Array.isArray(years) ? years : [])
    .filter((y) => Number.isInteger(y?.year) && typeof y.amountUsd === 'number' && Number.isFinite(y.amountUsd) && y.amountUsd >= 0)
    .sort((a, b) => a.year - b.year);
  if (clean.length === 0) return noDataChart(title, 'Funds lost at exchanges', opts.simulated);
  // A year missing from the list lost nothing on record; drawn as an empty slot, so that the
  // spacing of the bars is the spacing of the years.
  const first = clean[0]!.year;
  const lastYear = clean[clean.length - 1]!.year;
  const span = Math.min(50, lastYear - first + 1);
  const filled = Array.from(
    { length: span },
    (_, i) => clean.find((y) => y.year === first + i) ?? { year: first + i, amountUsd: 0, incidents: 0 },
  );
  const total = clean.reduce((s, y) => s + y.amountUsd, 0);
  const worst = clean.reduce((a, b) => (b.amountUsd > a.amountUsd ? b : a));
  const config = {
    type: 'bar' as const,
    data: {
      labels: filled.map((y) => formatPlain(y.year)),
      datasets: [
        {
          label: 'Lost, USD',
          data: filled.map((y) => y.amountUsd),
          backgroundColor: SERIES_COLOR.liabilities,
          borderWidth: 0,
          maxBarThickness: 48,
        },
      ],
    },
    plugins: [background],
    options: {
      ...still(),
      plugins: {
        title: titlePlugin(title),
        subtitle: subtitlePlugin(
          subtitleText(
            [
              'USD a year (lower is better)',
              `${formatUsd(total)} in ${first === lastYear ? formatPlain(first) : `${formatPlain(first)}–${formatPlain(lastYear)}`}`,
              `worst ${formatPlain(worst.year)}: ${formatUsd(worst.amountUsd)}`,
            ],
            opts.simulated,
          ),
        ),
        legend: { display: false },
        tooltip: { enabled: false },
      },
      scales: {
        x: { grid: { display: false }, ticks: { color: INK.muted, font: tickFont, maxRotation: 0 } },
        y: {
          beginAtZero: true,
          grid: { color: INK.grid },
          border: { display: false },
          ticks: { color: INK.muted, font: tickFont, callback: usdTickCallback },
        },
      },
    },
  };
  const perYear = clean.map((y) => `${formatPlain(y.year)} ${formatUsd(y.amountUsd)}`).join(', ');
  return {
    // The shared type is the line chart's; a bar config is drawn by the same Chart.js.
    config: config as unknown as BuiltChart['config'],
    alt: `Funds lost at exchanges by year: ${perYear}; ${formatUsd(total)} in all.${altSuffix(opts.simulated)}`,
    empty: false,
  };
}
