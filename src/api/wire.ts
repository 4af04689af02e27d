import { z } from 'zod';
import type { QualityScore } from './domain.js';

/**
 * Wire pieces shared by the REST bodies and the MCP structured content. Parsing is tolerant where
 * the upstream documents are silent (extra fields are ignored, numbers may arrive as strings), and
 * strict where meaning is at stake (a PoL must be a number).
 */

export const num = z.union([z.number(), z.string().regex(/^-?\d+(\.\d+)?(e-?\d+)?$/i).transform(Number)]).pipe(z.number().finite());
export const optNum = num.nullable().optional().transform((v) => v ?? null);
export const optBool = z.boolean().nullable().optional().transform((v) => v ?? null);
export const optStr = z.string().nullable().optional().transform((v) => v ?? null);
export const timestamp = num.pipe(z.number().int().nonnegative());

export const qualityScore = z
  .object({ score: num, rating: z.string().min(1), confidence: z.string().optional() })
  .transform((s): QualityScore => ({ score: s.score, rating: s.rating, ...(s.confidence ? { confidence: s.confidence } : {}) }));

/** `none_identified` means the upstream looked and found nothing; it becomes an empty list. */
export const findings = z
  .union([z.array(z.string()), z.string(), z.null()])
  .optional()
  .transform((v): string[] => {
    if (v === undefined || v === null) return [];
    if (typeof v === 'string') return v === 'none_identified' || v.trim() === '' ? [] : [v];
    return v.filter((s) => s.trim() !== '' && s !== 'none_identified');
  });

/** 1..4 (lower is stricter); empty or `not_returned` means unavailable, never tier 0. */
export const jurisdictionTier = z
  .union([z.number(), z.string(), z.null()])
  .optional()
  .transform((v): 1 | 2 | 3 | 4 | null => {
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^[1-4]$/.test(v.trim()) ? Number(v.trim()) : NaN;
    return n === 1 || n === 2 || n === 3 || n === 4 ? n : null;
  });

/** A category point: `{timestamp, <category>: {score, rating, confidence}, ...}`. */
export const categoryPoint = z
  .object({ timestamp })
  .catchall(z.unknown())
  .transform((p, ctx) => {
    const scores: Record<string, QualityScore> = {};
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
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
}
