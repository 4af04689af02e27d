import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { isUnreadable } from '../../../src/api/domain.js';
import { readAnswer } from '../../../src/api/read-answer.js';
import * as S from '../../../src/api/rest/schemas.js';
import { inspect, optional, required } from '../../../src/api/rules.js';
import * as fmt from '../../../src/reply/format.js';

const read = <T extends z.ZodType>(schema: T, body: unknown) => {
  const seen: { route: string; fields: string[]; rows: number }[] = [];
  const out = readAnswer('test /v1/x', schema, body, (route, fields, rows) =>
    seen.push({ route, fields: fields.map((f) => f.field), rows }),
  );
  return { ...out, seen };
};

describe('domain rules', () => {
  it('reads a PoL only as a probability: 1.7, 173, 1e308, -0.1, Infinity and text are unreadable, never rescaled', () => {
    const pol = required('pol');
    expect(pol.parse(0)).toBe(0);
    expect(pol.parse(1)).toBe(1);
    expect(pol.parse('0.0123')).toBe(0.0123);
    for (const odd of [1.7, 173, 1e308, -0.1, Number.POSITIVE_INFINITY, Number.NaN]) {
      expect(pol.parse(odd)).toMatchObject({ unreadable: true, reason: Number.isNaN(odd) ? 'not a number' : 'out of range' });
    }
    expect(pol.parse('high')).toMatchObject({ unreadable: true, reason: 'not a number', value: 'high' });
    expect(pol.parse(null)).toMatchObject({ unreadable: true, reason: 'missing' });
    // JSON itself can carry an infinity: 1e999 parses to Infinity.
    expect(pol.parse(JSON.parse('1e999'))).toMatchObject({ unreadable: true, reason: 'out of range' });
  });

  it('checks scores, ratings, confidence, amounts, counts, timestamps and the jurisdiction tier', () => {
    expect(required('score').parse(100)).toBe(100);
    for (const odd of [250, -3, 100.01]) expect(isUnreadable(required('score').parse(odd))).toBe(true);
    expect(required('rating').parse('bbb+')).toBe('BBB+');
    expect(required('rating').parse('E')).toMatchObject({ reason: 'not on the scale' });
    expect(required('rating').parse(7)).toMatchObject({ reason: 'not on the scale' });
    expect(optional('confidence').parse('moderate')).toBe('Moderate');
    expect(optional('confidence').parse('Certain')).toMatchObject({ reason: 'not on the scale' });
    expect(optional('confidence').parse(undefined)).toBeNull();
    expect(optional('amount').parse(-5)).toMatchObject({ reason: 'out of range' });
    expect(optional('count').parse(2.5)).toMatchObject({ reason: 'out of range' });
    expect(optional('change').parse(-12.5)).toBe(-12.5);
    expect(required('timestamp').parse(1_230_768_000)).toBe(1_230_768_000);
    expect(required('timestamp').parse(1_000_000_000)).toMatchObject({ reason: 'out of range' }); // 2001
    expect(required('timestamp').parse(Math.floor(Date.now() / 1000) + 3 * 86_400)).toMatchObject({ reason: 'out of range' });
    expect(optional('jurisdictionTier').parse('not_returned')).toBeNull();
    expect(optional('jurisdictionTier').parse('')).toBeNull();
    expect(optional('jurisdictionTier').parse('3')).toBe(3);
    expect(optional('jurisdictionTier').parse(0)).toMatchObject({ reason: 'out of range' });
    expect(optional('jurisdictionTier').parse(2.5)).toMatchObject({ reason: 'out of range' });
  });
});

describe('partial answers', () => {
  it('keeps the readable fields of an answer and reports the others by route and field', () => {
    const { value, unreadable, seen } = read(S.polCurrent, { pol: 1.7, rating: 'A', timestamp: 1_763_769_600 });
    expect(value.rating).toBe('A');
    expect(value.pol).toMatchObject({ unreadable: true, reason: 'out of range', value: 1.7 });
    expect(unreadable).toEqual({ route: 'test /v1/x', fields: ['pol'], rows: 0, first: 'pol: out of range' });
    expect(seen).toEqual([{ route: 'test /v1/x', fields: ['pol'], rows: 0 }]);
  });

  it('fails an answer whole only when nothing in it can be read', () => {
    expect(() => read(S.polCurrent, { result: 'unexpected', items: 42 })).toThrow(expect.objectContaining({ kind: 'bad_response' }));
    expect(() => read(S.entityList, { items: { slug: 'x' } })).toThrow(expect.objectContaining({ kind: 'bad_response' }));
  });

  it('skips list rows without an identity and counts them', () => {
    const { value, unreadable } = read(S.entityList, { items: [{ slug: 'a', name: 'A' }, { slug: 'b' }, null, { slug: 'c', name: 'C' }] });
    expect(value.items.filter((i) => !isUnreadable(i))).toEqual([
      { slug: 'a', name: 'A' },
      { slug: 'c', name: 'C' },
    ]);
    expect(unreadable).toEqual({ route: 'test /v1/x', fields: [], rows: 2 });
  });

  it('draws chart points whole or skips them', () => {
    const t = 1_763_769_600;
    const { value, unreadable } = read(S.points(S.polPoint), {
      points: [
        { timestamp: t, pol: 0.1 },
        { timestamp: t + 86_400, pol: 12 },
        { timestamp: 5, pol: 0.1 },
      ],
    });
    expect(value.points.filter((p) => !isUnreadable(p))).toEqual([{ timestamp: t, pol: 0.1 }]);
    expect(unreadable?.rows).toBe(2);
  });

  it('folds list indices in field paths, so a metric label names the field, not the row', () => {
    const body = {
      categories: [
        { category: 'security', score: { score: 250, rating: 'A' } },
        { category: 'financial', score: { score: 50, rating: 'Q' } },
      ],
    };
    expect(inspect(S.byCategory.parse(body)).fields.map((f) => f.field)).toEqual(['categories[].score.score', 'categories[].score.rating']);
  });
});

describe('formatters refuse values outside their domain as well', () => {
  it('never prints a PoL above 100 % or a score above 100', () => {
    expect(fmt.pol(1.7)).toBe('unreadable (out of range)');
    expect(fmt.pol(-0.01)).toBe('unreadable (out of range)');
    expect(fmt.pol(0.0123)).toBe('1.23%');
    expect(fmt.score(250)).toBe('unreadable (out of range)');
    expect(fmt.score(72.5)).toBe('72.5');
    expect(fmt.rating({ unreadable: true, reason: 'not on the scale' })).toBe('unreadable (not on the scale)');
  });
});
