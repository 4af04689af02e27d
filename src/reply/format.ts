import { type Checked, isUnreadable, unreadable } from '../api/domain.js';
import { unreadableText } from '../api/rules.js';
import { fixedDigits, plainDigits, significantDigits } from './digits.js';

/**
 * Number formatting shared by every reply, so the same value reads the same everywhere. A value
 * the upstream sent outside its domain reads "unreadable (out of range)", never as a number.
 */

const DASH = '—';

type Value = Checked<number> | null | undefined;

const finite = (v: Value): v is number => typeof v === 'number' && Number.isFinite(v);

/** The text for a value that is not a finite number: why it is unreadable, or a dash for "none". */
const absent = (v: Value): string => {
  if (isUnreadable(v)) return unreadableText(v);
  if (typeof v === 'number') return unreadableText(unreadable(Number.isNaN(v) ? 'not a number' : 'out of range'));
  return DASH;
};

/** A rating, or why it could not be read. */
export function rating(value: Checked<string> | null | undefined): string {
  if (value === null || value === undefined) return DASH;
  return isUnreadable(value) ? unreadableText(value) : value;
}

/** PoL (0..1) as a percentage: more decimals for small values, so 0.0009 doesn't read as 0.00%. */
export function pol(value: Value): string {
  // A PoL outside 0..1 never reaches here from the sources; refusing it again keeps a slip elsewhere from showing 170%.
  if (!finite(value) || value < 0 || value > 1) return absent(value);
  const pct = value * 100;
  const decimals = pct < 0.1 ? 3 : pct < 10 ? 2 : 1;
  return nonzero(pct, decimals, '%');
}

/** A PoL change in percentage points, signed. */
export function polChange(delta: number): string {
  const pp = delta * 100;
  if (!finite(pp)) return DASH;
  if (delta === 0) return '±0 pp';
  const decimals = Math.abs(pp) < 0.1 ? 3 : 2;
  const sign = pp > 0 ? '+' : '−';
  const text = fixedDigits(Math.abs(pp), decimals);
  return Number(text) === 0 ? `${sign}<${(10 ** -decimals).toFixed(decimals)} pp` : `${sign}${text} pp`;
}

/** Quality scores (0..100) as the upstream gives them, without float noise. */
export function score(value: Value): string {
  if (!finite(value) || value < 0 || value > 100) return absent(value);
  const rounded = Math.round(value * 10) / 10;
  // A score of 0.04 is not 0: it keeps two significant digits rather than reading as nothing.
  return rounded === 0 && value !== 0 ? small(value) : String(rounded);
}

/** Below this a nonzero value reads "<0.01": its significant digits would be noise far to the right. */
const SMALLEST = 0.01;

/** A nonzero value that rounds to zero: two significant digits (0.04, 0.4), or "<0.01" when smaller. */
function small(value: number): string {
  if (Math.abs(value) >= SMALLEST) return significantDigits(value, 2);
  return value > 0 ? `<${SMALLEST}` : `>−${SMALLEST}`;
}

// Intl does the rounding across units (999,999 is $1M, never $1000K) and keeps small amounts in
// plain notation ($0.00000042, never 4.2e-7).
const usdCompact = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', notation: 'compact', maximumSignificantDigits: 3 });
const usdSmall = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumSignificantDigits: 3 });
const usdCents = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
const shareFormat = new Intl.NumberFormat('en-US', { style: 'percent', maximumSignificantDigits: 3 });

const withMinus = (text: string): string => text.replace(/^-/, '−');

/** Money, compact with up to three significant digits: $1.2B, $12.3M, $950, $0.42. */
export function usd(value: Value): string {
  if (!finite(value)) return absent(value);
  return withMinus(usdCompact.format(value));
}

/** Prices span from $0.00000042 to $100,000: cents from a dollar up, three significant digits below. */
export function price(value: Value): string {
  if (!finite(value)) return absent(value);
  return withMinus(Math.abs(value) >= 1 ? usdCents.format(value) : usdSmall.format(value));
}

/** A value already in percent (12.3 -> "12.3%"); a nonzero value too small for the decimals reads "<0.1%". */
export function percent(value: Value, decimals = 1): string {
  if (!finite(value)) return absent(value);
  return nonzero(value, decimals, '%');
}

/** A share (0..1) as a percent: 0.64 -> "64%", 0.1234 -> "12.3%". */
export function share(value: Value): string {
  if (!finite(value)) return absent(value);
  return withMinus(shareFormat.format(value));
}

/** A number of no known unit, to two decimals at most. */
export function decimal(value: Value): string {
  if (!finite(value)) return absent(value);
  return withMinus(value.toLocaleString('en-US', { maximumFractionDigits: 2 }));
}

export function count(value: Value): string {
  if (!finite(value)) return absent(value);
  const rounded = Math.round(value);
  return rounded === 0 && value !== 0 ? small(value) : rounded.toLocaleString('en-US');
}

/** A year, or another number that names rather than counts: digits without separators (2017, never 2,017). */
export function year(value: Value): string {
  if (!finite(value)) return absent(value);
  return withMinus(plainDigits(value));
}

/** `value` to `decimals`, except that a nonzero value never reads as zero: "<0.1%". */
function nonzero(value: number, decimals: number, unit: string): string {
  const text = fixedDigits(value, decimals);
  if (Number(text) !== 0 || value === 0) return `${text}${unit}`;
  const least = (10 ** -decimals).toFixed(decimals);
  return value > 0 ? `<${least}${unit}` : `>−${least}${unit}`;
}

export function yesNo(value: Checked<boolean> | null | undefined, yes = 'yes', no = 'no'): string {
  if (isUnreadable(value)) return unreadableText(value);
  if (value === true) return yes;
  if (value === false) return no;
  return 'unavailable';
}

/** "3 min", "2 h", "5 d": for stale markers and schedules. */
export function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 90) return `${m} min`;
  const h = Math.round(m / 60);
  if (h < 36) return `${h} h`;
  return `${plainDigits(Math.round(h / 24))} d`;
}

/** UTC timestamp as "2026-11-22 09:00 UTC". */
export function utc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The text an adapter shows for a title from the upstream: one line, bounded. */
export function oneLine(text: string, max = 150): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
