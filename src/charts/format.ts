import { fixedDigits, plainDigits, significantDigits } from '../reply/digits.js';

/**
 * Number, date and text formatting for charts and their alt text. The tick formatters have twins
 * as source text for QuickChart in `configs/common.ts`; a test keeps each pair in agreement.
 * Numbers are never in exponent notation (see `reply/digits.ts`).
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

/** A fraction as a percentage: 0.0123 -> "1.23%". */
export function formatPercent(fraction: number, decimals = 2): string {
  // A fraction beyond 1.8e306 has no percent a double can hold.
  if (!Number.isFinite(fraction * 100)) return '–';
  return `${fixed(fraction * 100, decimals)}%`;
}

/**
 * A PoL for prose (alt text, "latest" in subtitles): enough digits that small probabilities stay
 * distinguishable (0.08% vs 0.12%) without printing noise on large ones.
 */
export function formatPol(fraction: number): string {
  if (!Number.isFinite(fraction)) return '–';
  const pct = Math.abs(fraction * 100);
  const decimals = pct >= 10 ? 1 : pct >= 0.1 || pct === 0 ? 2 : 3;
  return formatPercent(fraction, decimals);
}

/**
 * Decimals for a percent axis, from the step between its ticks (fractions): a 0.05% step needs
 * two, 0.5% one, 5% none. All ticks share one count so the labels line up.
 */
export function percentDecimals(step: number): number {
  const pct = Math.abs(step * 100);
  if (!(pct > 0) || !Number.isFinite(pct)) return 2;
  return Math.max(0, Math.min(4, Math.ceil(-Math.log10(pct) - 1e-9)));
}

const tickStep = (ticks: readonly { value: number }[]) => (ticks.length > 1 ? Math.abs(ticks[1]!.value - ticks[0]!.value) : Number.NaN);

/** Tick label of a percent axis whose values are fractions: 0.0123 with a 0.1% step -> "1.2%". */
export function percentTick(value: number, ticks: readonly { value: number }[]): string {
  return formatPercent(value, percentDecimals(tickStep(ticks)));
}

/** Tick label of an axis already in percent units (inflation: 3.5 -> "3.5%"). */
export function percentUnitTick(value: number, ticks: readonly { value: number }[]): string {
  return formatPercent(value / 100, percentDecimals(tickStep(ticks) / 100));
}

const usdCompact = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  notation: 'compact',
  minimumFractionDigits: 0,
  maximumFractionDigits: 1,
});

/** 1_234_000_000 -> "$1.2B"; 950 -> "$950". */
export function formatUsd(value: number): string {
  if (!Number.isFinite(value)) return '–';
  return usdCompact.format(value);
}

export function formatScore(value: number): string {
  if (!Number.isFinite(value)) return '–';
  return fixedDigits(value, Number.isInteger(value) ? 0 : 1);
}

/** 3.456 -> "3.46%", 1.2 -> "1.2%" (inflation, already in percent per year). */
export function formatPercentUnits(value: number): string {
  if (!Number.isFinite(value)) return '–';
  const text = fixed(value, Math.abs(value) >= 10 ? 1 : 2);
  return `${text.includes('.') ? text.replace(/\.?0+$/, '') : text}%`;
}

/** A count or a year in alt text and subtitles: plain digits, no separators (1234 commits, 2024). */
export function formatPlain(value: number): string {
  if (!Number.isFinite(value)) return '–';
  return plainDigits(value, 2);
}

/**
 * Tick label of a logarithmic percent axis, whose ticks span decades (0.05%, 0.1%, ... 50%): each
 * tick gets the digits it needs rather than one count for the whole axis.
 */
export function logPercentTick(fraction: number): string {
  if (!Number.isFinite(fraction * 100)) return '';
  return `${significantDigits(fraction * 100, 3)}%`;
}

/**
 * Ticks for a logarithmic axis from min to max: 1-2-5 per decade (0.1%, 0.2%, 0.5%, 1%, ...), or
 * only powers of ten when that would crowd the axis. Chart.js's own log ticks skip whole decades
 * on wide ranges.
 */
export function roundLogTicks(min: number, max: number, maxTicks = 9): number[] {
  if (!(min > 0) || !(max > min) || !Number.isFinite(max)) return [];
  const out: number[] = [];
  const mantissas = [1, 2, 5];
  const from = Math.floor(Math.log10(min));
  const to = Math.ceil(Math.log10(max));
  for (let e = from; e <= to; e++) {
    for (const m of mantissas) {
      const v = Number((m * 10 ** e).toPrecision(1));
      if (v >= min * (1 - 1e-9) && v <= max * (1 + 1e-9)) out.push(v);
    }
  }
  if (out.length <= maxTicks) return out;
  return out.filter((v) => Math.abs(v / 10 ** Math.round(Math.log10(v)) - 1) < 1e-9);
}

/** `value` to `decimals`, in plain digits: "0.00", "1.23", never "1e+21". */
export function fixed(value: number, decimals: number): string {
  const s = fixedDigits(value, decimals);
  // "-0.00" reads as a negative probability; zero has no sign.
  return /^-0(\.0+)?$/.test(s) ? s.slice(1) : s;
}

/** Date-label styles, from the span of the data. */
export type DateStyle = 'hour' | 'day' | 'month';

export function dateStyleFor(spanSeconds: number): DateStyle {
  if (spanSeconds <= 3 * 86_400) return 'hour';
  if (spanSeconds <= 240 * 86_400) return 'day';
  return 'month';
}

/** UTC labels: "Nov 22 14:00", "Nov 22", "Nov 2025". */
export function formatDate(timestamp: number, style: DateStyle): string {
  const d = new Date(timestamp * 1000);
  if (Number.isNaN(d.getTime())) return '';
  const month = MONTHS[d.getUTCMonth()];
  if (style === 'month') return `${month} ${d.getUTCFullYear()}`;
  const day = `${month} ${d.getUTCDate()}`;
  if (style === 'day') return day;
  return `${day} ${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
}

/** Range tokens from the command grammar, spelled out. */
export function rangeLabel(range: string): string {
  const r = cleanText(range, 40);
  const m = /^(\d{1,4})\s*d$/i.exec(r);
  if (m) return Number(m[1]) === 1 ? '1 day' : `${Number(m[1])} days`;
  if (/^all$/i.test(r)) return 'all history';
  return r;
}

export const MAX_TITLE_CHARS = 80;

/**
 * Upstream names may hold anything: control characters, bidi overrides that reorder the rest of
 * the line, zero-width characters, megabytes of text. Charts and alt text get one plain line.
 */
export function cleanText(text: unknown, max = MAX_TITLE_CHARS): string {
  if (typeof text !== 'string') return '';
  const flat = text
    .slice(0, max * 8)
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/[\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  const chars = Array.from(flat);
  if (chars.length <= max) return flat;
  return `${chars
    .slice(0, Math.max(1, max - 1))
    .join('')
    .trimEnd()}…`;
}
