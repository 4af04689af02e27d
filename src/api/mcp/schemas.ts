import { z } from 'zod';
import { optional, qualityScore, rows } from '../rules.js';
import { categoryPoint, findings, heatmap, num, optBool, optStr, socialSignals } from '../wire.js';

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
  projects: rows(z.object({ name: z.string().min(1), slug: z.string().min(1) })),
  totalProjects: num.optional(),
});

export const age = z.object({ projectLaunchedAt: optStr, protocolLaunchedAt: optStr });

export const github = z.object({ heatmap, commitsCount7d: optional('count') });

export const team = z.object({
  isEducationRelevant: optBool,
  isWorkExperienceRelevant: optBool,
  isBusinessExperienceRelevant: optBool,
});

export const certifications = z.object({
  isIso27001Present: optBool,
  isCcssPresent: optBool,
  ccssLevel: optional('count'),
  isSoc2Present: optBool,
});

export const redFlags = z.object({ mmRedFlags: findings, investorRedFlags: findings });

export const socialFraud = z.object({ social: socialSignals });

export const registration = z.object({
  isPublicRegistrationPresent: optBool,
  jurisdictionQuality: optional('jurisdictionTier'),
});

export const prosCons = z.object({ pros: findings, cons: findings });

export const reviews = z.object({
  reviews: z
    .union([z.array(z.object({ author: z.string(), content: z.string(), publishedAt: optStr })), z.string(), z.null()])
    .optional()
    .transform((v) => (Array.isArray(v) ? v : [])),
});

export const marketData = z.object({
  price: optional('amount'),
  marketCap: optional('amount'),
  volume24h: optional('amount'),
  priceChange24h: optional('change'),
});

export const dynamicScores = z.object({ points: rows(categoryPoint, { strict: true }) });
