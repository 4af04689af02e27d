import type { z } from 'zod';
import { badResponse } from './errors.js';
import { isUnreadable } from './domain.js';
import { inspect, type UnreadableField } from './rules.js';
import type { Meta } from './source.js';
import { describeIssues } from './wire.js';

export type OnUnreadable = (route: string, fields: UnreadableField[], rows: number) => void;

/**
 * An upstream answer parsed against its schema. The answer fails whole only when its shape is
 * wrong where no part can be read without it (the body is not an object, a list is not a list, an
 * identity is missing); values outside their domain and unreadable rows are reported and kept out
 * of sight, and the rest is returned.
 */
export function readAnswer<T extends z.ZodType>(
  route: string,
  schema: T,
  body: unknown,
  onUnreadable: OnUnreadable | undefined,
): { value: z.output<T>; unreadable?: NonNullable<Meta['unreadable']> } {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw badResponse(route, describeIssues(parsed.error));
  const found = inspect(parsed.data);
  if (found.fields.length === 0 && found.rows === 0) return { value: parsed.data };
  // Nothing at all could be read: that is an answer of another shape, not an answer with odd
  // values, and it fails whole (so that a value cached earlier can stand in for it).
  if (found.fields.length > 0 && !hasReadableValue(parsed.data)) {
    throw badResponse(
      route,
      `${found.fields[0]!.field}: ${found.fields[0]!.reason}${found.fields.length > 1 ? ` (and ${found.fields.length - 1} more)` : ''}; nothing readable`,
    );
  }
  onUnreadable?.(route, found.fields, found.rows);
  const first = found.fields[0];
  return {
    value: parsed.data,
    unreadable: {
      route,
      fields: [...new Set(found.fields.map((f) => f.field))],
      rows: found.rows,
      ...(first ? { first: `${first.field}: ${first.reason}` } : {}),
    },
  };
}

function hasReadableValue(v: unknown): boolean {
  if (v === null || v === undefined || isUnreadable(v)) return false;
  if (Array.isArray(v)) return v.some(hasReadableValue);
  if (typeof v === 'object') return Object.values(v).some(hasReadableValue);
  return true;
}

/**
 * An answer that names the entity it is about must name the one asked for: numbers for another
 * entity shown under this one's name are the worst thing a risk card can show. `keys` are the
 * fields that carry the slug in this source's answers.
 */
export function assertAbout(route: string, body: unknown, slug: string, keys: readonly string[]): void {
  if (body === null || typeof body !== 'object') return;
  for (const key of keys) {
    const named = (body as Record<string, unknown>)[key];
    if (typeof named === 'string' && named.trim() !== '' && named.trim().toLowerCase() !== slug.toLowerCase()) {
      throw badResponse(route, `${key}: the answer is about "${named.slice(0, 60)}", not "${slug}"`);
    }
  }
}
