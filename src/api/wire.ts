import { z } from 'zod';
import { type Checked, unreadable } from './domain.js';
import { checkSignal, optional, qualityScore, required } from './rules.js';

/**
 * Wire pieces shared by the REST bodies and the MCP structured content. Parsing is tolerant where
 * the upstream documents are silent (extra fields are ignored, numbers may arrive as strings); the
 * values shown to people are checked against their domain (`rules.ts`) field by field.
 */

export const num = z
  .union([
    z.number(),
    z
      .string()
      .regex(/^-?\d+(\.\d+)?(e-?\d+)?$/i)
      .transform(Number),
  ])
  .pipe(z.number().finite());
export const optBool = optional('flag');
export const optStr = z
  .string()
  .nullable()
  .optional()
  .transform((v) => v ?? null);

export { qualityScore };

/**
 * `none_identified` means the upstream looked and found nothing; it becomes an empty list. Anything
 * but text or a list of text is unreadable, not "none".
 */
export const findings = z
  .unknown()
  .optional()
  .transform((v): Checked<string[]> => {
    if (v === undefined || v === null) return [];
    if (typeof v === 'string') return v === 'none_identified' || v.trim() === '' ? [] : [v];
    if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) return unreadable('wrong type', v);
    return (v as string[]).filter((s) => s.trim() !== '' && s !== 'none_identified');
  });

/** A category point: `{timestamp, <category>: {score, rating, confidence}, ...}`, drawn whole or skipped. */
export const categoryPoint = z
  .object({ timestamp: required('timestamp') })
  .catchall(z.unknown())
  .transform((p, ctx) => {
    const scores: Record<string, z.output<typeof qualityScore>> = {};
    for (const [key, value] of Object.entries(p)) {
      if (key === 'timestamp' || value === null || typeof value !== 'object') continue;
      const parsed = qualityScore.safeParse(value);
      if (!parsed.success) {
        ctx.addIssue({ code: 'custom', message: `category ${key} is not a score object` });
        return z.NEVER;
      }
      scores[key] = parsed.data;
    }
    return { timestamp: p.timestamp, scores };
  });

export function describeIssues(error: z.ZodError): string {
  return error.issues.slice(0, 3).map(plainIssue).join('; ');
}

/** `items.3.name: Invalid input: expected string, received undefined` -> `items[3].name: missing`. */
function plainIssue(issue: z.core.$ZodIssue): string {
  const field = fieldPath(issue.path);
  if (issue.code === 'invalid_type') {
    const received = /received (\w+)/.exec(issue.message)?.[1];
    if (received === 'undefined') return `${field}: missing`;
    return `${field}: ${received ? withArticle(received) : 'another type'} where ${withArticle(issue.expected)} was expected`;
  }
  return `${field}: ${issue.message.replace(/^Invalid input: /, '').toLowerCase()}`;
}

function fieldPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'the answer';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i > 0 ? '.' : ''}${String(p)}`)).join('');
}

const withArticle = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/** Weeks of daily commit counts; anything else is no heatmap (the documents leave its shape open). */
export const heatmap = z
  .unknown()
  .optional()
  .transform((v): number[][] => {
    const parsed = z.array(z.array(z.number().int().nonnegative())).safeParse(v);
    return parsed.success ? parsed.data : [];
  });

/**
 * Social-fraud signals: open keys, each number checked by what its name says it is (a share, a
 * percent, a score, a count); text and yes/no pass as they are.
 */
export const socialSignals = z
  .record(z.string(), z.unknown())
  .optional()
  .transform((social) => {
    const out: Record<string, Checked<number> | string | boolean> = {};
    for (const [key, value] of Object.entries(social ?? {})) {
      if (typeof value === 'string' && !/^-?\d/.test(value.trim())) out[key] = value;
      else if (typeof value === 'boolean') out[key] = value;
      // Nested objects and lists are not signals the card knows how to say; they are dropped, not flagged.
      else if (typeof value === 'number' || typeof value === 'string') out[key] = checkSignal(key, value);
    }
    return out;
  });
