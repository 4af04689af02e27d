import { Cron } from 'croner';

/**
 * Schedules: what a person typed (daily, weekdays, weekly, a cron expression; a time; a timezone)
 * normalised to one 5-field cron expression, an IANA timezone and a label for people. croner
 * computes every slot, in the digest's timezone, so 09:00 Europe/Berlin stays 09:00 local across
 * daylight-saving changes.
 */
export interface Schedule {
  cron: string;
  timezone: string;
  /** e.g. "weekdays at 09:00"; the timezone is shown separately. */
  label: string;
}

export type ScheduleSpec =
  | { kind: 'daily' | 'weekdays'; time?: string; timezone?: string }
  | { kind: 'weekly'; day?: string; time?: string; timezone?: string }
  | { kind: 'cron'; cron: string; timezone?: string };

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

export const DEFAULT_TIME = '09:00';
export const DEFAULT_TIMEZONE = 'UTC';
/** Digests are summaries, not alerts: more often than hourly would flood a channel. */
export const MIN_INTERVAL_MS = 60 * 60 * 1000;

export const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
const WEEKDAY_LABELS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** "mon", "Monday", "mondays" → 1. */
export function weekdayNumber(word: string): number | undefined {
  const w = word.toLowerCase().replace(/s$/, '');
  if (w.length < 3) return undefined;
  const i = WEEKDAYS.findIndex((d) => d.startsWith(w));
  return i === -1 ? undefined : i;
}

/** IANA names ("Europe/Berlin", any case) or UTC; offsets and abbreviations are refused. */
export function checkTimezone(input: string): Checked<string> {
  const tz = input.trim();
  const shaped = /^utc$/i.test(tz) || /^[A-Za-z][A-Za-z_-]*(\/[A-Za-z0-9_+-]+){1,2}$/.test(tz);
  if (shaped) {
    try {
      const canonical = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
      return { ok: true, value: canonical === 'Etc/UTC' ? 'UTC' : canonical };
    } catch {
      // Falls through to the message below.
    }
  }
  return { ok: false, message: `Unknown timezone '${tz.slice(0, 40)}': use an IANA name such as Europe/Berlin, America/New_York or UTC.` };
}

function checkTime(input: string | undefined): Checked<{ hour: number; minute: number; text: string }> {
  const m = /^(\d{1,2}):(\d{2})$/.exec(input ?? DEFAULT_TIME);
  const hour = Number(m?.[1]);
  const minute = Number(m?.[2]);
  if (!m || hour > 23 || minute > 59)
    return { ok: false, message: `Unknown time '${input}': use HH:MM on a 24-hour clock, for example 09:00 or 17:30.` };
  return { ok: true, value: { hour, minute, text: `${String(hour).padStart(2, '0')}:${m[2]}` } };
}

const cronCache = new Map<string, Cron>();

function cronOf(expression: string, timezone: string): Cron {
  const key = `${timezone} ${expression}`;
  let job = cronCache.get(key);
  if (!job) {
    // Paused and without a callback: croner only computes times here, it never runs anything.
    job = new Cron(expression, { timezone, paused: true, mode: '5-part' });
    if (cronCache.size > 1000) cronCache.clear();
    cronCache.set(key, job);
  }
  return job;
}

export function checkCron(expression: string, timezone: string, now = Date.now()): Checked<string> {
  const cron = expression.trim().replace(/\s+/g, ' ');
  if (cron.split(' ').length !== 5) {
    return {
      ok: false,
      message: `The cron expression "${cron.slice(0, 60)}" needs exactly 5 fields: minute hour day-of-month month day-of-week.`,
    };
  }
  let job: Cron;
  try {
    job = cronOf(cron, timezone);
  } catch (err) {
    const detail = String((err as Error).message ?? err).replace(/^CronPattern:\s*/, '');
    return { ok: false, message: `The cron expression "${cron.slice(0, 60)}" is not valid: ${detail.slice(0, 120)}` };
  }
  const runs = job.nextRuns(50, new Date(now)).map((d) => d.getTime());
  if (runs.length === 0) return { ok: false, message: `The cron expression "${cron}" never runs.` };
  for (let i = 1; i < runs.length; i++) {
    if (runs[i]! - runs[i - 1]! < MIN_INTERVAL_MS) {
      return { ok: false, message: `The cron expression "${cron}" runs more often than once an hour; digests run at most hourly.` };
    }
  }
  return { ok: true, value: cron };
}

export function buildSchedule(spec: ScheduleSpec, now = Date.now()): Checked<Schedule> {
  const tz = checkTimezone(spec.timezone ?? DEFAULT_TIMEZONE);
  if (!tz.ok) return tz;
  const timezone = tz.value;
  if (spec.kind === 'cron') {
    const cron = checkCron(spec.cron, timezone, now);
    if (!cron.ok) return cron;
    return { ok: true, value: { cron: cron.value, timezone, label: `cron "${cron.value}"` } };
  }
  const time = checkTime(spec.time);
  if (!time.ok) return time;
  const { hour, minute, text } = time.value;
  switch (spec.kind) {
    case 'daily':
      return { ok: true, value: { cron: `${minute} ${hour} * * *`, timezone, label: `daily at ${text}` } };
    case 'weekdays':
      return { ok: true, value: { cron: `${minute} ${hour} * * 1-5`, timezone, label: `weekdays at ${text}` } };
    case 'weekly': {
      const day = spec.day === undefined ? 1 : weekdayNumber(spec.day);
      if (day === undefined) return { ok: false, message: `Unknown day '${spec.day}': use a weekday such as monday or fri.` };
      return { ok: true, value: { cron: `${minute} ${hour} * * ${day}`, timezone, label: `weekly on ${WEEKDAY_LABELS[day]} at ${text}` } };
    }
  }
}

/** The first slot strictly after `afterMs`, or null when the expression never runs again. */
export function nextSlot(cron: string, timezone: string, afterMs: number): number | null {
  return cronOf(cron, timezone).nextRun(new Date(afterMs))?.getTime() ?? null;
}

/** Forward steps tried before a gap is treated as an outage and walked backwards instead. */
const FORWARD_STEPS = 16;

/**
 * Slots in (fromExclusive, toInclusive], oldest first. The usual case, a digest falling due once,
 * is found by stepping forward from `fromExclusive`. A gap holding more slots than that (an outage)
 * is walked backwards from `toInclusive` instead, so it costs at most `limit` steps: beyond that
 * many, the older slots are not listed but counted in `dropped`, estimated from the average gap
 * between the listed ones.
 */
export function slotsBetween(
  cron: string,
  timezone: string,
  fromExclusive: number,
  toInclusive: number,
  limit = 500,
): { slots: number[]; dropped: number } {
  if (toInclusive <= fromExclusive) return { slots: [], dropped: 0 };
  const job = cronOf(cron, timezone);
  const forward: number[] = [];
  for (let after = fromExclusive; forward.length <= Math.min(limit, FORWARD_STEPS); ) {
    const t = job.nextRun(new Date(after))?.getTime();
    if (t === undefined || t > toInclusive) return { slots: forward, dropped: 0 };
    forward.push(t);
    after = t;
  }
  // croner's reference is exclusive and whole seconds; slots fall on whole minutes.
  const recent = job
    .previousRuns(limit + 1, new Date(toInclusive + 1000))
    .map((d) => d.getTime())
    .filter((t) => t > fromExclusive && t <= toInclusive)
    .reverse();
  if (recent.length <= limit) return { slots: recent, dropped: 0 };
  const slots = recent.slice(-limit);
  const oldest = slots[0]!;
  const gap = (slots[slots.length - 1]! - oldest) / Math.max(1, slots.length - 1);
  return { slots, dropped: Math.max(1, Math.round((oldest - fromExclusive) / Math.max(gap, 60_000))) };
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function partsIn(msValue: number, timezone: string): Record<string, string> {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      weekday: 'short',
      hourCycle: 'h23',
      timeZoneName: 'shortOffset',
    });
    formatters.set(timezone, f);
  }
  return Object.fromEntries(f.formatToParts(new Date(msValue)).map((p) => [p.type, p.value]));
}

/** "2026-11-22 09:00 Europe/Berlin": how a slot is named to people and in delivery keys. */
export function formatSlot(msValue: number, timezone: string, options: { weekday?: boolean; offset?: boolean } = {}): string {
  const p = partsIn(msValue, timezone);
  const day = `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`;
  const offset = options.offset && timezone !== 'UTC' ? ` (${p.timeZoneName})` : '';
  return `${options.weekday ? `${p.weekday} ` : ''}${day} ${timezone}${offset}`;
}

/** Typical gap between slots, for choosing the chart's range. */
export function typicalInterval(cron: string, timezone: string, fromMs: number): number {
  const runs = cronOf(cron, timezone)
    .nextRuns(8, new Date(fromMs))
    .map((d) => d.getTime());
  if (runs.length < 2) return 24 * 60 * 60 * 1000;
  return (runs[runs.length - 1]! - runs[0]!) / (runs.length - 1);
}
