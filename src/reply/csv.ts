import { stringify } from 'csv-stringify/sync';

/**
 * A table as CSV for spreadsheets: a header row, then one row per record, RFC 4180 quoting (by
 * csv-stringify). Text from the upstream that a spreadsheet would run as a formula (`=`, `+`, `-`,
 * `@` first) is prefixed with an apostrophe, so that opening an export never runs anything.
 */
export function toCsv(header: readonly string[], rows: readonly (readonly (string | number | null)[])[]): Buffer {
  const safe = rows.map((row) => row.map((v) => (typeof v === 'string' && /^[=+\-@\t\r]/.test(v) ? `'${v}` : (v ?? ''))));
  return Buffer.from(stringify([header as string[], ...(safe as (string | number)[][])]), 'utf8');
}
