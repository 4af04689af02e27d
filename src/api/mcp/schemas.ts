import { z } from 'zod';
import { categoryPoint, findings, jurisdictionTier, num, optBool, optNum, optStr, qualityScore } from '../wire.js';

/**
 * `structuredContent` of the tools, requiring only the fields the tool document lists, so polbot
 * works against a server that sends nothing more.
 */

export const scoreEnvelope = z.object({
  status: z.string().optional(),
  entityType: z.string().optional(),
  resolvedSlug: z.string().optional(),
  scoreDirection: z.string().optional(),
  score: qualityScore,
});

const match = z.union([
  z.string().transform((slug) => ({ slug, name: slug, ticker: undefined as string | undefined })),
  z.object({ slug: z.string().min(1), name: z.string().optional(), ticker: z.string().optional() }).transform((m) => ({
    slug: m.slug,
    name: m.name ?? m.slug,
    ticker: m.ticker,
  })),
]);

export const resolution = z.object({
  status: z.enum(['resolved', 'ambiguous', 'not_found']),
  query: z.string().optional(),
  resolvedSlug: z.string().optional(),
  resolvedName: z.string().optional(),
  matches: z.array(match).optional().default([]),
});

export const projectsList = z.object({
  projects: z.array(z.object({ name: z.string().min(1), slug: z.string().min(1) })),
  totalProjects: num.optional(),
});

export const age = z.object({ projectLaunchedAt: optStr, protocolLaunchedAt: optStr });

export const github = z.object({
  heatmap: z.unknown().optional(),
  commitsCount7d: optNum,
});

export const team = z.object({
  isEducationRelevant: optBool,
  isWorkExperienceRelevant: optBool,
  isBusinessExperienceRelevant: optBool,
});

export const certifications = z.object({
  isIso27001Present: optBool,
  isCcssPresent: optBool,
  ccssLevel: optNum,
  isSoc2Present: optBool,
});

export const redFlags = z.object({ mmRedFlags: findings, investorRedFlags: findings });

export const socialFraud = z.object({
  social: z.record(z.string(), z.unknown()).optional().default({}),
});

export const registration = z.object({
  isPublicRegistrationPresent: optBool,
  jurisdictionQuality: jurisdictionTier,
});

export const prosCons = z.object({ pros: findings, cons: findings });

export const reviews = z.object({
  reviews: z
    .union([z.array(z.object({ author: z.string(), content: z.string(), publishedAt: optStr })), z.string(), z.null()])
    .optional()
    .transform((v) => (Array.isArray(v) ? v : [])),
});

export const marketData = z.object({ price: optNum, marketCap: optNum, volume24h: optNum.optional(), priceChange24h: optNum.optional() });

export const dynamicScores = z.object({ points: z.array(categoryPoint) });

/** A heatmap in the shape the upstream happens to send, kept only when it is weeks of daily counts. */
export function heatmapOf(value: unknown): number[][] {
  const parsed = z.array(z.array(z.number())).safeParse(value);
  return parsed.success ? parsed.data : [];
}
