/** Number formatting shared by every reply, so the same value reads the same everywhere. */

const DASH = '—';

const finite = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);

/** PoL (0..1) as a percentage: more decimals for small values, so 0.0009 doesn't read as 0.00%. */
export function pol(value: number | null | undefined): string {
  if (!finite(value)) return DASH;
  const pct = value * 100;
  const decimals = pct < 0.1 ? 3 : pct < 10 ? 2 : 1;
  return `${pct.toFixed(decimals)}%`;
}

/** A PoL change in percentage points, signed. */
export function polChange(delta: number): string {
  if (!finite(delta)) return DASH;
  const pp = delta * 100;
  const decimals = Math.abs(pp) < 0.1 ? 3 : 2;
  const text = Math.abs(pp).toFixed(decimals);
  if (Number(text) === 0) return '±0 pp';
  return `${pp > 0 ? '+' : '−'}${text} pp`;
}

/** Quality scores as the upstream gives them, without float noise. */
export function score(value: number | null | undefined): string {
  if (!finite(value)) return DASH;
  return String(Math.round(value * 10) / 10);
}

export function usd(value: number | null | undefined): string {
  if (!finite(value)) return DASH;
  const abs = Math.abs(value);
  const sign = value < 0 ? '−' : '';
  if (abs >= 1e12) return `${sign}$${(abs / 1e12).toFixed(2)}T`;
  if (abs >= 1e9) return `${sign}$${(abs / 1e9).toFixed(2)}B`;
  if (abs >= 1e6) return `${sign}$${(abs / 1e6).toFixed(2)}M`;
  if (abs >= 1e3) return `${sign}$${(abs / 1e3).toFixed(1)}K`;
  return `${sign}$${abs.toFixed(2)}`;
}

/** Prices span from $0.00000123 to $100,000: keep 4 significant digits below a dollar. */
export function price(value: number | null | undefined): string {
  if (!finite(value)) return DASH;
  if (value >= 1) return `$${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  if (value === 0) return '$0';
  return `$${value.toPrecision(4).replace(/0+$/, '').replace(/\.$/, '')}`;
}

export function percent(value: number | null | undefined, decimals = 1): string {
  if (!finite(value)) return DASH;
  return `${value.toFixed(decimals)}%`;
}

export function count(value: number | null | undefined): string {
  if (!finite(value)) return DASH;
  return Math.round(value).toLocaleString('en-US');
}

export function yesNo(value: boolean | null | undefined, yes = 'yes', no = 'no'): string {
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
  return `${Math.round(h / 24)} d`;
}

/** UTC timestamp as "2026-11-22 09:00 UTC". */
export function utc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function date(isoOrUnix: string | number | null | undefined): string {
  if (isoOrUnix === null || isoOrUnix === undefined || isoOrUnix === '') return DASH;
  const d = typeof isoOrUnix === 'number' ? new Date(isoOrUnix * 1000) : new Date(isoOrUnix);
  return Number.isNaN(d.getTime()) ? DASH : d.toISOString().slice(0, 10);
}

/** The text an adapter shows for a title from the upstream: one line, bounded. */
export function oneLine(text: string, max = 150): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
