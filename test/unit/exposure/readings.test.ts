import { describe, expect, it } from 'vitest';
import { MemoryListedReadings } from '../../../src/exposure/memory.js';
import { placement } from '../../../src/exposure/readings.js';

/** How readings of listed assets are kept: of a day only the first and the latest, for 90 days. */

const DAY = 86_400_000;
const T = Date.parse('2026-11-22T09:00:00Z');

describe('readings of listed assets', () => {
  it('keeps the first reading of a day, adds a second, then moves the second on; the same list again adds nothing', () => {
    const first = { at: T, pols: { '1': 0.2 } };
    expect(placement([], T, { '1': 0.2 })).toBe('add');
    expect(placement([first], T + 1, { '1': 0.2 })).toBe('skip');
    expect(placement([first], T + 1, { '1': 0.3 })).toBe('add');
    expect(placement([first, { at: T + 1, pols: { '1': 0.3 } }], T + 2, { '1': 0.2 })).toBe('replace');
    // A reading older than the day's latest (a slow replica) changes nothing.
    expect(placement([first, { at: T + 5, pols: { '1': 0.3 } }], T + 2, { '1': 0.4 })).toBe('skip');
  });

  it('answers the earliest reading in a window and when readings start, and forgets what is 90 days old', async () => {
    const kept = new MemoryListedReadings();
    await kept.record('binance', T - 80 * DAY, { '1': 0.1 });
    await kept.record('binance', T - 10 * DAY, { '1': 0.2 });
    await kept.record('binance', T - 10 * DAY + 1, { '1': 0.25 });
    await kept.record('binance', T - 10 * DAY + 2, { '1': 0.3 });
    expect(await kept.earliest('binance', T - 30 * DAY, T)).toEqual({
      reading: { at: T - 10 * DAY, pols: { '1': 0.2 } },
      firstAt: T - 80 * DAY,
    });
    expect(await kept.earliest('binance', T - 7 * DAY, T)).toEqual({ reading: null, firstAt: T - 80 * DAY });
    await kept.record('binance', T + 11 * DAY, { '1': 0.3 });
    // The reading of 80 days before is now more than 90 days old and gone; of ten days before, the first and the latest remain.
    expect(await kept.earliest('binance', 0, T + 11 * DAY)).toEqual({
      reading: { at: T - 10 * DAY, pols: { '1': 0.2 } },
      firstAt: T - 10 * DAY,
    });
    expect((await kept.earliest('binance', T - 10 * DAY + 1, T)).reading).toEqual({ at: T - 10 * DAY + 2, pols: { '1': 0.3 } });
    expect(await kept.earliest('kraken', 0, T)).toEqual({ reading: null, firstAt: null });
  });
});
