import { type Args, str, type TextOption } from './spec.js';

/**
 * A history window typed as dates (`from 2026-03-01 to 2026-06-30`, `since 2026-01-01`) or as a
 * length back from today (`last 45d`, `last 6m`). Dates are UTC days; `to` includes its whole day.
 * A date that does not exist, a window that runs backwards or into the future is refused with a
 * short correction, never guessed.
 */

export interface Window {
  /** Unix seconds. */
  from: number;
  to: number;
  /** As a person reads it: "2026-03-01 to 2026-06-30", "last 45 days". */
  label: string;
}

export type WindowResult = { ok: true; window: Window | null } | { ok: false; message: string; hint: string };

/** The dates a command was given, as typed: what a button re-running it carries. */
export const typedDates = (args: Args): Record<string, string> =>
  Object.fromEntries(DATE_OPTIONS.map((o) => [o.name, str(args, o.name)]).filter(([, v]) => v !== ''));

/**
 * The window a command's options name, if any. A range choice (`365d`, the option `range`) and
 * dates together are refused: which one was meant cannot be told. `example` is the command as
 * typed before its range (`chart bitcoin`), for the correction.
 */
export function windowOf(args: Args, nowMs: number, example: string): WindowResult {
  const dates = typedDates(args);
  const read = readWindow(dates, nowMs);
  const range = str(args, 'range');
  if (read.ok && read.window && range) {
    return {
      ok: false,
      message: `Give either a range (${range}) or dates, not both.`,
      hint: `For example: ${example} 365d, or ${example} from 2026-03-01 to 2026-06-30.`,
    };
  }
  return read;
}

export const DATE_OPTIONS: readonly TextOption[] = [
  {
    type: 'text',
    name: 'from',
    label: 'YYYY-MM-DD',
    keywords: ['from', 'since'],
    description: 'Start date, YYYY-MM-DD (instead of a range)',
    maxLength: 10,
  },
  {
    type: 'text',
    name: 'to',
    label: 'YYYY-MM-DD',
    keywords: ['to', 'until'],
    description: 'End date, YYYY-MM-DD (default today)',
    maxLength: 10,
  },
  { type: 'text', name: 'last', label: '45d', keywords: ['last'], description: 'A length back from today: 45d, 12w, 6m, 2y', maxLength: 5 },
];

const DAY_S = 86_400;
const UNIT_DAYS: Record<string, number> = { d: 1, w: 7, m: 30, y: 365 };
/** No history is older than Bitcoin. */
const EARLIEST = Date.UTC(2009, 0, 1) / 1000;
const HINT = 'For example: from 2026-03-01 to 2026-06-30, since 2026-01-01, or last 45d.';

const isoDay = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

function day(text: string, what: string): { ok: true; seconds: number } | { ok: false; message: string } {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : Number.NaN;
  // Date.UTC rolls 2026-02-30 over to March: a date that comes back different does not exist.
  if (!m || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text) {
    return { ok: false, message: `'${text.slice(0, 20)}' is not a ${what} date: use YYYY-MM-DD.` };
  }
  return { ok: true, seconds: ms / 1000 };
}

function readWindow(args: { from?: string; to?: string; last?: string }, nowMs: number): WindowResult {
  const now = Math.floor(nowMs / 1000);
  const today = isoDay(now);
  const fail = (message: string): WindowResult => ({ ok: false, message, hint: HINT });
  if (args.last !== undefined) {
    if (args.from !== undefined || args.to !== undefined) return fail("Give either 'last' or dates, not both.");
    const m = /^(\d{1,4})([dwmy])$/i.exec(args.last);
    const days = m ? Number(m[1]) * UNIT_DAYS[m[2]!.toLowerCase()]! : 0;
    if (!m || days < 1 || days > 20 * 365)
      return fail(`'${args.last.slice(0, 10)}' is not a length: use a number and d, w, m or y, like 45d.`);
    return { ok: true, window: { from: now - days * DAY_S, to: now, label: `last ${days} days` } };
  }
  if (args.from === undefined)
    return args.to === undefined ? { ok: true, window: null } : fail(`'to ${args.to.slice(0, 10)}' needs a start: add 'from YYYY-MM-DD'.`);
  const from = day(args.from, 'start');
  if (!from.ok) return fail(from.message);
  const to = args.to === undefined ? { ok: true as const, seconds: now } : day(args.to, 'end');
  if (!to.ok) return fail(to.message);
  const end = args.to === undefined ? now : to.seconds + DAY_S - 1;
  if (from.seconds > now) return fail(`${args.from} is in the future: the history ends today, ${today}.`);
  if (args.to !== undefined && to.seconds > now) return fail(`${args.to} is in the future: the history ends today, ${today}.`);
  if (from.seconds > end) return fail(`The dates run backwards: ${args.from} comes after ${args.to}. Try from ${args.to} to ${args.from}.`);
  if (end < EARLIEST) return fail(`There is no history before ${isoDay(EARLIEST)}.`);
  return {
    ok: true,
    window: {
      from: from.seconds,
      to: Math.min(end, now),
      label: args.to === undefined ? `since ${args.from}` : `${args.from} to ${args.to}`,
    },
  };
}

/** Whole days from `from` to now: what a chart route needs to cover a window that starts then. */
export const daysBack = (from: number, nowMs: number) => Math.max(1, Math.ceil((nowMs / 1000 - from) / DAY_S));
