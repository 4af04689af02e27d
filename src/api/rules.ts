import { z } from 'zod';
import { type Checked, type Readable, type Unreadable, type UnreadableReason, isUnreadable, unreadable } from './domain.js';

/**
 * The domain of every value polbot shows, in one place. A value outside its domain is never shown
 * as a number and never rescaled (173 is not taken for 1.73 %): it parses as an `Unreadable` marker
 * naming why, the rest of the answer parses on, and `inspect` finds the markers afterwards so that
 * the source can log and count them by route and field.
 */

/** The rating scale of the tool document ("AAA to D"); the steps between are the usual ones. */
export const RATING_SCALE = ['AAA', 'AA', 'A', 'BBB', 'BB', 'B', 'CCC', 'CC', 'C', 'D'] as const;
export const CONFIDENCE_LEVELS = ['Exceptional', 'High', 'Moderate', 'Low'] as const;

/** Position on the rating scale, larger is worse (A- below A); undefined for a rating not on it. */
export function ratingRank(rating: string | null | undefined): number | undefined {
  const m = /^(AAA|AA|A|BBB|BB|B|CCC|CC|C|D)([+-])?$/i.exec((rating ?? '').trim());
  if (!m) return undefined;
  const base = RATING_SCALE.indexOf(m[1]!.toUpperCase() as (typeof RATING_SCALE)[number]) * 3 + 1;
  return m[2] === '+' ? base - 1 : m[2] === '-' ? base + 1 : base;
}

/** Bitcoin's genesis year: no risk data is older. */
const EARLIEST_SECONDS = Date.UTC(2009, 0, 1) / 1000;
const DAY_SECONDS = 86_400;

const NUMERIC = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;

function numberOf(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && NUMERIC.test(v.trim())) return Number(v.trim());
  return undefined;
}

type Check<T> = (v: unknown) => Checked<T>;

/** A number whose domain is `ok` (finite always). */
const numberIn =
  (ok: (n: number) => boolean): Check<number> =>
  (v) => {
    if (v === undefined || v === null || v === '') return unreadable('missing');
    const n = numberOf(v);
    if (n === undefined || Number.isNaN(n)) return unreadable('not a number', v);
    return Number.isFinite(n) && ok(n) ? n : unreadable('out of range', v);
  };

const between = (min: number, max: number) => numberIn((n) => n >= min && n <= max);

const CHECKS = {
  /** Probability of Loss: a probability, never a percent. */
  pol: between(0, 1),
  /** Category and metric quality scores. */
  score: between(0, 100),
  /** Shares of a whole (bot followers, reserve coverage as a fraction). */
  share: between(0, 1),
  /** Prices, market caps, volumes, amounts in USD. */
  amount: numberIn((n) => n >= 0),
  count: numberIn((n) => n >= 0 && Number.isInteger(n)),
  /** A signed change (24 h price change, volume change): any finite number. */
  change: numberIn(() => true),
  /** Unix seconds from 2009 to one day ahead of now. */
  timestamp: numberIn((n) => Number.isInteger(n) && n >= EARLIEST_SECONDS && n <= Date.now() / 1000 + DAY_SECONDS),
  rating: (v: unknown): Checked<string> => {
    if (v === undefined || v === null || v === '') return unreadable('missing');
    if (typeof v !== 'string') return unreadable('not on the scale', v);
    const r = v.trim().toUpperCase();
    // Modifiers (BBB+, A-) are accepted: the document shows only the ends of the scale.
    return (RATING_SCALE as readonly string[]).includes(r.replace(/[+-]$/, '')) ? r : unreadable('not on the scale', v);
  },
  confidence: (v: unknown): Checked<string> => {
    if (v === undefined || v === null || v === '') return unreadable('missing');
    const found = typeof v === 'string' ? CONFIDENCE_LEVELS.find((c) => c.toLowerCase() === v.trim().toLowerCase()) : undefined;
    return found ?? unreadable('not on the scale', v);
  },
  /** Yes or no. */
  flag: (v: unknown): Checked<boolean> => (typeof v === 'boolean' ? v : unreadable('wrong type', v)),
  /** 1..4, lower is stricter; empty or `not_returned` is the documented "no value", null. */
  jurisdictionTier: (v: unknown): Checked<1 | 2 | 3 | 4 | null> => {
    if (v === undefined || v === null || v === '' || v === 'not_returned') return null;
    const n = numberOf(v);
    return n === 1 || n === 2 || n === 3 || n === 4 ? n : unreadable('out of range', v);
  },
} as const;

type Rule = keyof typeof CHECKS;
type Out<R extends Rule> = ReturnType<(typeof CHECKS)[R]>;

/** A social signal's number, by what its key says it is. */
export function checkSignal(key: string, value: unknown): Checked<number> {
  if (/(pct|percent|score)$/i.test(key)) return CHECKS.score(value);
  if (/(share|ratio|fraction)$/i.test(key)) return CHECKS.share(value);
  if (/(days|followers|members|count)$/i.test(key)) return CHECKS.count(value);
  return numberIn(() => true)(value);
}

/** A field that must be present: absent or null is itself unreadable. */
export function required<R extends Rule>(rule: R) {
  return z
    .unknown()
    .optional()
    .transform((v) => CHECKS[rule](v) as Out<R>);
}

/** A field the upstream may leave out (or send as null): then it is null, not unreadable. */
export function optional<R extends Rule>(rule: R) {
  return z
    .unknown()
    .optional()
    .transform((v) => (v === undefined || v === null ? null : (CHECKS[rule](v) as Out<R>)));
}

/** A quality score object: `{score, rating, confidence?}`, each part checked on its own. */
export const qualityScore = z
  .object({ score: required('score'), rating: required('rating'), confidence: optional('confidence') })
  .transform((s) => ({ score: s.score, rating: s.rating, ...(s.confidence !== null ? { confidence: s.confidence } : {}) }));

/**
 * A list read row by row: a row that does not parse becomes an "unreadable row" marker in its
 * place (the map skips it, `inspect` counts it) instead of failing the whole list. With `strict`,
 * a row holding any unreadable value is skipped too: a chart point is drawn whole or not at all.
 */
export function rows<T extends z.ZodType>(row: T, options: { strict?: boolean } = {}) {
  return z.array(z.unknown()).transform((items) =>
    items.map((item): Checked<z.output<T>> => {
      const parsed = row.safeParse(item);
      if (!parsed.success) return unreadable('unreadable row');
      if (options.strict && inspect(parsed.data).fields.length > 0) return unreadable('unreadable row');
      return parsed.data;
    }),
  );
}

/** The rows that could be read; the others are counted by `inspect`. */
export function readableRows<T>(items: readonly Checked<T>[]): Readable<T>[] {
  // Strict rows hold no markers at all; loose rows keep theirs for the reply to show.
  return items.filter((i) => !isUnreadable(i)) as Readable<T>[];
}

export interface UnreadableField {
  /** Path with list indices folded (`categories[].score.score`), so that metrics stay bounded. */
  field: string;
  reason: UnreadableReason;
  value?: unknown;
}

export interface Findings {
  fields: UnreadableField[];
  rows: number;
}

/** Every unreadable field and row in a parsed answer. */
export function inspect(parsed: unknown): Findings {
  const found: Findings = { fields: [], rows: 0 };
  const walk = (v: unknown, path: string): void => {
    if (isUnreadable(v)) {
      if (v.reason === 'unreadable row') found.rows++;
      else found.fields.push({ field: path || '(root)', reason: v.reason, ...('value' in v ? { value: v.value } : {}) });
      return;
    }
    if (Array.isArray(v)) for (const item of v) walk(item, `${path}[]`);
    else if (v && typeof v === 'object') for (const [k, item] of Object.entries(v)) walk(item, path ? `${path}.${k}` : k);
  };
  walk(parsed, '');
  return found;
}

/** What a person reads for an unreadable value, in place of the number. */
export function unreadableText(v: Unreadable): string {
  return v.reason === 'missing' ? 'unreadable (missing)' : `unreadable (${v.reason})`;
}

/** A value as a log line or a diagnosis shows it: short, and "absent" for a missing one. */
export function previewValue(value: unknown): string {
  const text = value === undefined ? 'absent' : typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value));
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
