import { describe, expect, it } from 'vitest';
import { parseAddArgs } from '../../../commands/kit/digest-args.js';
import { buildSchedule, checkTimezone, formatSlot, nextSlot, slotsBetween } from '../../../src/digest/schedule.js';

const utc = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function ok<T>(r: { ok: true; value: T } | { ok: false; message: string }): T {
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

describe('schedules', () => {
  it('normalise daily, weekdays and weekly (Monday unless a day is named) to cron and a label', () => {
    expect(ok(buildSchedule({ kind: 'daily' }))).toEqual({ cron: '0 9 * * *', timezone: 'UTC', label: 'daily at 09:00' });
    expect(ok(buildSchedule({ kind: 'daily', time: '7:05', timezone: 'asia/tokyo' }))).toEqual({
      cron: '5 7 * * *',
      timezone: 'Asia/Tokyo',
      label: 'daily at 07:05',
    });
    expect(ok(buildSchedule({ kind: 'weekdays', time: '17:30' }))).toMatchObject({ cron: '30 17 * * 1-5', label: 'weekdays at 17:30' });
    expect(ok(buildSchedule({ kind: 'weekly' }))).toMatchObject({ cron: '0 9 * * 1', label: 'weekly on Monday at 09:00' });
    expect(ok(buildSchedule({ kind: 'weekly', day: 'fri', time: '16:00' }))).toMatchObject({
      cron: '0 16 * * 5',
      label: 'weekly on Friday at 16:00',
    });
    expect(ok(buildSchedule({ kind: 'cron', cron: '0  8 * *  1-5', timezone: 'America/New_York' }))).toEqual({
      cron: '0 8 * * 1-5',
      timezone: 'America/New_York',
      label: 'cron "0 8 * * 1-5"',
    });
  });

  it('refuse bad times, days, cron expressions and timezones with a clear message', () => {
    const fail = (r: { ok: boolean; message?: string }) => (r.ok ? 'accepted' : r.message);
    expect(fail(buildSchedule({ kind: 'daily', time: '25:00' }))).toMatch(/Unknown time '25:00': use HH:MM/);
    expect(fail(buildSchedule({ kind: 'daily', time: '9am' }))).toMatch(/Unknown time '9am'/);
    expect(fail(buildSchedule({ kind: 'weekly', day: 'someday' }))).toMatch(/Unknown day 'someday'/);
    expect(fail(buildSchedule({ kind: 'cron', cron: '0 9 * *' }))).toMatch(/needs exactly 5 fields/);
    expect(fail(buildSchedule({ kind: 'cron', cron: '0 9 * * * *' }))).toMatch(/needs exactly 5 fields/);
    expect(fail(buildSchedule({ kind: 'cron', cron: '61 9 * * *' }))).toMatch(/is not valid: .*minute/);
    expect(fail(buildSchedule({ kind: 'cron', cron: '*/10 * * * *' }))).toMatch(/more often than once an hour/);
    expect(fail(buildSchedule({ kind: 'cron', cron: '0 0 31 2 *' }))).toMatch(/never runs/);
    expect(fail(buildSchedule({ kind: 'daily', timezone: 'Mars/Olympus_Mons' }))).toMatch(/Unknown timezone 'Mars\/Olympus_Mons'/);
    expect(fail(buildSchedule({ kind: 'daily', timezone: '+01:00' }))).toMatch(/Unknown timezone/);
    expect(fail(buildSchedule({ kind: 'daily', timezone: 'CET' }))).toMatch(/IANA name such as Europe\/Berlin/);
    expect(ok(checkTimezone('utc'))).toBe('UTC');
  });

  it('fire 09:00 Europe/Berlin at the right UTC instant on both sides of the March and October changes', () => {
    const cron = '0 9 * * *';
    const tz = 'Europe/Berlin';
    // 2026: summer time starts Sunday 29 March, ends Sunday 25 October.
    const march = slotsBetween(cron, tz, utc('2026-03-27T00:00:00Z'), utc('2026-03-31T00:00:00Z')).slots.map(iso);
    expect(march).toEqual(['2026-03-27T08:00:00.000Z', '2026-03-28T08:00:00.000Z', '2026-03-29T07:00:00.000Z', '2026-03-30T07:00:00.000Z']);
    const october = slotsBetween(cron, tz, utc('2026-10-23T00:00:00Z'), utc('2026-10-27T00:00:00Z')).slots.map(iso);
    expect(october).toEqual([
      '2026-10-23T07:00:00.000Z',
      '2026-10-24T07:00:00.000Z',
      '2026-10-25T08:00:00.000Z',
      '2026-10-26T08:00:00.000Z',
    ]);
    expect(formatSlot(utc('2026-03-29T07:00:00Z'), tz, { offset: true })).toBe('2026-03-29 09:00 Europe/Berlin (GMT+2)');
    expect(formatSlot(utc('2026-10-25T08:00:00Z'), tz, { offset: true, weekday: true })).toBe('Sun 2026-10-25 09:00 Europe/Berlin (GMT+1)');
  });

  it('give a slot in the skipped hour of spring once, just after the gap, and the repeated autumn hour once', () => {
    const tz = 'Europe/Berlin';
    expect(iso(nextSlot('30 2 * * *', tz, utc('2026-03-28T12:00:00Z')))).toBe('2026-03-29T01:00:00.000Z');
    const autumn = slotsBetween('30 2 * * *', tz, utc('2026-10-24T12:00:00Z'), utc('2026-10-26T12:00:00Z')).slots.map(iso);
    expect(autumn).toEqual(['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
  });

  it('bound the slots walked after a long outage, estimating how many older ones were dropped', () => {
    const { slots, dropped } = slotsBetween('0 * * * *', 'UTC', utc('2026-01-01T00:00:00Z') - 1, utc('2026-12-31T23:00:00Z'), 100);
    expect(slots).toHaveLength(100);
    expect(iso(slots[0]!)).toBe('2026-12-27T20:00:00.000Z');
    expect(iso(slots[99]!)).toBe('2026-12-31T23:00:00.000Z');
    expect(slots.length + dropped).toBe(365 * 24);
    // Exact below the limit.
    const week = slotsBetween('0 9 * * *', 'Europe/Berlin', utc('2026-03-25T00:00:00Z'), utc('2026-03-31T23:00:00Z'), 100);
    expect(week.dropped).toBe(0);
    expect(week.slots.map(iso)).toHaveLength(7);
    // Either side of the forward steps: the walk forward and the walk back agree.
    for (const n of [1, 15, 16, 17, 18, 40]) {
      const from = utc('2026-03-20T12:00:00Z');
      const { slots: daily } = slotsBetween('0 9 * * *', 'Europe/Berlin', from, from + n * 86_400_000, 100);
      expect(daily).toHaveLength(n);
      expect(new Set(daily.map((t) => formatSlot(t, 'Europe/Berlin').slice(11)))).toEqual(new Set(['09:00 Europe/Berlin']));
    }
  });
});

describe('digest add arguments', () => {
  it('read names first, then the schedule in any order', () => {
    expect(ok(parseAddArgs('bitcoin ethereum binance'))).toEqual({
      names: ['bitcoin', 'ethereum', 'binance'],
      spec: { kind: 'daily' },
      scheduleText: '',
    });
    expect(ok(parseAddArgs('lido dao, uniswap, "curve dao" weekly on friday at 16:00 tz Europe/Berlin'))).toEqual({
      names: ['lido dao', 'uniswap', 'curve dao'],
      spec: { kind: 'weekly', day: 'friday', time: '16:00', timezone: 'Europe/Berlin' },
      scheduleText: 'weekly friday at 16:00 tz Europe/Berlin',
    });
    expect(ok(parseAddArgs('bitcoin tz America/New_York "30 8 * * 1-5"'))).toEqual({
      names: ['bitcoin'],
      spec: { kind: 'cron', cron: '30 8 * * 1-5', timezone: 'America/New_York' },
      scheduleText: '"30 8 * * 1-5" tz America/New_York',
    });
    // Phones and some keyboards turn quotes into curly ones.
    expect(ok(parseAddArgs('bitcoin “0 7 * * *”')).spec).toEqual({ kind: 'cron', cron: '0 7 * * *' });
    expect(ok(parseAddArgs('"lido dao" pepe weekdays')).names).toEqual(['lido dao', 'pepe']);
  });

  it('refuse a schedule given twice, an unquoted cron, at with cron, and stray words', () => {
    const msg = (text: string) => {
      const r = parseAddArgs(text);
      return r.ok ? 'accepted' : r.message;
    };
    expect(msg('bitcoin daily weekly')).toMatch(/schedule is given twice/);
    expect(msg('bitcoin at 09:00 at 10:00')).toMatch(/time is given twice/);
    expect(msg('bitcoin 0 9 * * *')).toMatch(/in double quotes/);
    expect(msg('bitcoin "0 9 * * *" at 09:00')).toMatch(/'at' goes with daily, weekdays or weekly/);
    expect(msg('bitcoin daily ethereum')).toMatch(/Unexpected 'ethereum' in the schedule: names come first/);
    expect(msg('bitcoin daily tz')).toMatch(/Which timezone/);
    expect(msg('bitcoin weekly on')).toMatch(/Which day/);
  });
});
