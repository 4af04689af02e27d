import { dateStyleFor, formatDate, type DateStyle } from './format.js';

/**
 * Turning upstream points into what a chart draws: clean, sorted samples on one shared timeline,
 * thinned when there are more points than the plot has pixels for, and sparse date labels.
 */

export interface Sample {
  t: number;
  v: number;
}

/**
 * Keeps points with a finite timestamp and value (NaN, null, strings and missing fields are skipped),
 * sorted by time; of two points with the same timestamp the later one in the input wins.
 */
export function cleanSamples<P>(points: readonly P[] | null | undefined, value: (p: P) => unknown): Sample[] {
  if (!Array.isArray(points)) return [];
  const out: Sample[] = [];
  for (const p of points as readonly P[]) {
    if (p === null || typeof p !== 'object') continue;
    const t = (p as { timestamp?: unknown }).timestamp;
    const v = value(p);
    if (typeof t !== 'number' || !Number.isFinite(t) || typeof v !== 'number' || !Number.isFinite(v)) continue;
    out.push({ t, v });
  }
  out.sort((a, b) => a.t - b.t);
  const deduped: Sample[] = [];
  for (const s of out) {
    const last = deduped[deduped.length - 1];
    if (last && last.t === s.t) deduped[deduped.length - 1] = s;
    else deduped.push(s);
  }
  return deduped;
}

export interface Aligned {
  timestamps: number[];
  /** One array per input series, aligned with `timestamps`; null where a series has no point. */
  values: (number | null)[][];
}

/** Puts several series on the union of their timestamps. */
export function align(series: readonly Sample[][]): Aligned {
  const all = new Set<number>();
  for (const s of series) for (const p of s) all.add(p.t);
  const timestamps = [...all].sort((a, b) => a - b);
  const index = new Map(timestamps.map((t, i) => [t, i]));
  const values = series.map((s) => {
    const row = new Array<number | null>(timestamps.length).fill(null);
    for (const p of s) row[index.get(p.t)!] = p.v;
    return row;
  });
  return { timestamps, values };
}

/**
 * Largest-Triangle-Three-Buckets over a shared timeline: keeps the first and last points exactly and,
 * in each bucket, the point that best preserves the shape of all series together (summed triangle
 * areas, each series scaled by its own range), so spikes survive thinning where striding drops them.
 */
export function downsampleIndices(timestamps: readonly number[], values: readonly (readonly (number | null)[])[], max: number): number[] {
  const n = timestamps.length;
  if (n <= max || max < 3) return Array.from({ length: n }, (_, i) => i);
  const t0 = timestamps[0]!;
  const tSpan = timestamps[n - 1]! - t0 || 1;
  const x = (i: number) => (timestamps[i]! - t0) / tSpan;
  const ranges = values.map((row) => {
    let lo = Infinity;
    let hi = -Infinity;
    for (const v of row) {
      if (v === null) continue;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    return hi > lo ? hi - lo : 0;
  });

  const picked = [0];
  const bucket = (n - 2) / (max - 2);
  let a = 0;
  for (let b = 0; b < max - 2; b++) {
    const start = Math.floor(b * bucket) + 1;
    const end = Math.min(Math.floor((b + 1) * bucket) + 1, n - 1);
    const nextStart = end;
    const nextEnd = Math.min(Math.floor((b + 2) * bucket) + 1, n);

    let cx = 0;
    for (let j = nextStart; j < nextEnd; j++) cx += x(j);
    cx /= Math.max(1, nextEnd - nextStart);
    const cy = values.map((row) => {
      let sum = 0;
      let count = 0;
      for (let j = nextStart; j < nextEnd; j++) {
        const v = row[j];
        if (v !== null && v !== undefined) {
          sum += v;
          count++;
        }
      }
      return count > 0 ? sum / count : null;
    });

    const ax = x(a);
    let best = start;
    let bestArea = -1;
    for (let j = start; j < end; j++) {
      const jx = x(j);
      let area = 0;
      for (let s = 0; s < values.length; s++) {
        const range = ranges[s]!;
        const ay = values[s]![a];
        const jy = values[s]![j];
        const c = cy[s];
        if (range === 0 || ay === null || ay === undefined || jy === null || jy === undefined || c === null || c === undefined) continue;
        area += Math.abs((ax - cx) * (jy - ay) - (ax - jx) * (c - ay)) / range;
      }
      if (area > bestArea) {
        bestArea = area;
        best = j;
      }
    }
    picked.push(best);
    a = best;
  }
  picked.push(n - 1);
  return picked;
}

/** Thins an aligned set to at most `max` timestamps (first and last kept exactly). */
export function thin(aligned: Aligned, max: number): Aligned {
  const keep = downsampleIndices(aligned.timestamps, aligned.values, max);
  if (keep.length === aligned.timestamps.length) return aligned;
  return {
    timestamps: keep.map((i) => aligned.timestamps[i]!),
    values: aligned.values.map((row) => keep.map((i) => row[i] ?? null)),
  };
}

const HOUR = 3_600;
const DAY = 86_400;

interface Bucketing {
  key: (t: number) => number;
  style: DateStyle;
}

function monthIndex(t: number): number {
  const d = new Date(t * 1000);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
}

/** 1970-01-01 was a Thursday; shifting by 3 days makes weeks start on Monday. */
const weekday = (t: number) => Math.floor((Math.floor(t / DAY) + 3) / 7);

function bucketingFor(spanSeconds: number, maxLabels: number): Bucketing {
  const style = dateStyleFor(spanSeconds);
  const fits = (approxBuckets: number) => approxBuckets <= maxLabels;
  if (style === 'hour') {
    for (const h of [1, 2, 3, 6, 12]) {
      if (fits(spanSeconds / (h * HOUR))) return { key: (t) => Math.floor(t / (h * HOUR)), style };
    }
    return { key: (t) => Math.floor(t / DAY), style: 'day' };
  }
  if (style === 'day') {
    const days = spanSeconds / DAY;
    for (const d of [1, 2, 3]) if (fits(days / d)) return { key: (t) => Math.floor(t / DAY / d), style };
    if (fits(days / 7)) return { key: (t) => weekday(t), style };
    // Half months (the 1st and 15th) read better than fortnights from an arbitrary Monday.
    if (fits(days / 15.2)) {
      return {
        key: (t) => monthIndex(t) * 2 + (new Date(t * 1000).getUTCDate() >= 15 ? 1 : 0),
        style,
      };
    }
    for (const m of [1, 2, 3]) if (fits(days / (30.44 * m))) return { key: (t) => Math.floor(monthIndex(t) / m), style };
  }
  const months = spanSeconds / (30.44 * DAY);
  for (const m of [1, 2, 3, 4, 6, 12, 24, 60]) {
    if (fits(months / m)) return { key: (t) => Math.floor(monthIndex(t) / m), style: 'month' };
  }
  return { key: (t) => Math.floor(monthIndex(t) / 120), style: 'month' };
}

/**
 * Category-axis labels: a date where a calendar bucket (day, week, half month, months) starts, and
 * `''` everywhere else, so ticks sit on round dates without a date adapter and at most about
 * `maxLabels` of them are drawn.
 */
export function dateLabels(timestamps: readonly number[], maxLabels = 7): string[] {
  const n = timestamps.length;
  if (n === 0) return [];
  const first = timestamps[0]!;
  const last = timestamps[n - 1]!;
  const { key, style } = bucketingFor(last - first, maxLabels);
  if (n === 1) return [formatDate(first, 'day')];
  const labels = new Array<string>(n).fill('');
  // The first point starts a bucket if a point one step earlier would have been in another one.
  const step = timestamps[1]! - first;
  let prev = key(first - step);
  let count = 0;
  for (let i = 0; i < n; i++) {
    const k = key(timestamps[i]!);
    if (k !== prev) {
      labels[i] = formatDate(timestamps[i]!, style);
      count++;
    }
    prev = k;
  }
  if (count === 0) {
    labels[0] = formatDate(first, style);
    labels[n - 1] = formatDate(last, style);
  }
  return labels;
}
