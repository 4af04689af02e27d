/**
 * Digits as people read them, never in exponent notation. `toFixed` switches to it from 1e21;
 * `String`, template literals and `toPrecision` below 1e-6 as well (4.2e-12). Intl and BigInt
 * never do, so they take over where the built-ins would.
 */

const EXPONENT_FROM = 1e21;

/**
 * `value.toFixed(decimals)`, in plain digits however large the value. From 1e21 every double is a
 * whole number, whose decimals would all be zero: it is written whole (chart formatters' QuickChart
 * twins do the same in as few characters, since a chart travels in its URL).
 */
export function fixedDigits(value: number, decimals: number): string {
  return Math.abs(value) < EXPONENT_FROM || !Number.isFinite(value) ? value.toFixed(decimals) : BigInt(value).toString();
}

/** Up to `digits` significant digits without trailing zeros or separators: 0.05, 20, 0.00000000042. */
export function significantDigits(value: number, digits: number): string {
  return value.toLocaleString('en-US', { useGrouping: false, maximumSignificantDigits: digits });
}

/** At most `decimals` decimals without trailing zeros or separators, for numbers that are names (a year). */
export function plainDigits(value: number, decimals = 0): string {
  return value.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: decimals });
}
