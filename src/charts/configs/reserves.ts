import type { ReservesPoint } from '../../api/domain.js';
import { fixed, formatUsd } from '../format.js';
import { align, cleanSamples } from '../series.js';
import {
  altSuffix,
  chartHeading,
  lineChart,
  noDataChart,
  paddedBounds,
  SERIES_COLOR,
  subtitleText,
  usdTickCallback,
  withAlpha,
  type BuiltChart,
  type ChartTextOptions,
} from './common.js';

/** An exchange's reserves against its liabilities, in USD. */
export function describeReservesChart(points: readonly ReservesPoint[], opts: ChartTextOptions): BuiltChart {
  const { title, name, range } = chartHeading(opts, 'reserves vs liabilities', 'this exchange');
  const reserves = cleanSamples(points, (p) => p.reserves);
  const liabilities = cleanSamples(points, (p) => p.liabilities);
  if (reserves.length === 0 && liabilities.length === 0) {
    return noDataChart(title, `Reserves and liabilities of ${name} over ${range}`, opts.simulated);
  }
  const r = reserves[reserves.length - 1]?.v;
  const l = liabilities[liabilities.length - 1]?.v;
  const ratio = r !== undefined && l !== undefined && l > 0 ? `ratio ${fixed(r / l, 2)}` : undefined;
  const aligned = align([reserves, liabilities]);
  const config = lineChart({
    title,
    subtitle: subtitleText(
      [
        'USD (reserves above liabilities is healthier)',
        r !== undefined && `reserves ${formatUsd(r)}`,
        l !== undefined && `liabilities ${formatUsd(l)}`,
        ratio,
      ],
      opts.simulated,
    ),
    aligned,
    datasets: [
      {
        label: 'Reserves',
        borderColor: SERIES_COLOR.reserves,
        backgroundColor: SERIES_COLOR.reserves,
        // Shades the gap: green where reserves cover liabilities, red where they fall short.
        fill: { target: 1, above: withAlpha(SERIES_COLOR.reserves, 0.1), below: withAlpha(SERIES_COLOR.liabilities, 0.16) },
      },
      { label: 'Liabilities', borderColor: SERIES_COLOR.liabilities, backgroundColor: SERIES_COLOR.liabilities },
    ],
    y: { ...paddedBounds(aligned.values, { lo: 0 }), ticks: { callback: usdTickCallback } },
    legend: true,
    maxPoints: opts.maxPoints,
  });
  const describe = (label: string, s: typeof reserves) =>
    s.length === 0
      ? `${label} not reported`
      : s.length > 1
        ? `${label} ${formatUsd(s[0]!.v)} to ${formatUsd(s[s.length - 1]!.v)}`
        : `${label} ${formatUsd(s[0]!.v)}`;
  return {
    config,
    alt: `Reserves and liabilities of ${name} over ${range}: ${describe('reserves', reserves)}; ${describe('liabilities', liabilities)}${ratio ? ` (${ratio})` : ''}.${altSuffix(opts.simulated)}`,
    empty: false,
  };
}
