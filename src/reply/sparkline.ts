/**
 * A series as one line of bars, for surfaces that draw text where a chart cannot go (a terminal,
 * a Telegram result without its photo). Long series are bucketed to the width.
 */
const BARS = '▁▂▃▄▅▆▇█';

export function sparkline(values: readonly number[], width = 48): string {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return '';
  // Bucket long series to the width so a year of days fits on one line.
  const step = Math.max(1, Math.ceil(finite.length / width));
  const buckets: number[] = [];
  for (let i = 0; i < finite.length; i += step) {
    const chunk = finite.slice(i, i + step);
    buckets.push(chunk.reduce((a, b) => a + b, 0) / chunk.length);
  }
  const min = Math.min(...buckets);
  const max = Math.max(...buckets);
  return buckets.map((v) => BARS[max === min ? 3 : Math.round(((v - min) / (max - min)) * (BARS.length - 1))]).join('');
}
