import { z } from 'zod';
import type { EntityKind, RatingEntry } from '../domain.js';
import { categoryPoint, findings, jurisdictionTier, num, optBool, optNum, optStr, qualityScore, timestamp } from '../wire.js';

/** Response bodies of the REST services, as polbot reads them (see README: assumed shapes). */

const slug = z.string().min(1);
const name = z.string().min(1);

export const entityList = z.object({
  items: z.array(z.object({ slug, name, ticker: z.string().optional() })),
});

export const searchResult = z.object({
  items: z.array(z.object({ slug, name, ticker: z.string().optional(), type: z.string().optional() })),
});

export const polPoint = z.object({ timestamp, pol: num });
export const polCurrent = z.object({ pol: num, rating: z.string().min(1), timestamp: timestamp.optional() });
export const points = <T extends z.ZodType>(point: T) => z.object({ points: z.array(point) });

export const byCategory = z.object({
  timestamp: timestamp.optional(),
  categories: z.array(z.object({ category: z.string().min(1), score: qualityScore, weight: num.optional() })),
});

export { categoryPoint };

export const byMetric = z.object({
  timestamp: timestamp.optional(),
  metrics: z.array(
    z.object({
      metric: z.string().min(1),
      category: z.string().optional(),
      label: z.string().optional(),
      weight: num.optional(),
      score: z.object({ score: num, rating: z.string().min(1), confidence: z.string().optional() }),
    }),
  ),
});

export const metricPoint = z.object({ timestamp, metrics: z.record(z.string(), num) });

export const indexPol = z.object({ pol: num, rating: z.string().min(1), entities: optNum, timestamp: timestamp.nullable().optional() });

const marketData = z
  .object({ price: optNum, marketCap: optNum, volume24h: optNum, priceChange24h: optNum })
  .partial();

export const projectRecord = z.object({
  slug,
  name,
  ticker: z.string().optional(),
  category: z.string().optional(),
  chains: z.array(z.string()).optional().default([]),
  website: z.string().optional(),
  launchedAt: z.string().optional(),
  marketData: marketData.optional(),
});

const markers = {
  isProofOfReservesPresent: optBool,
  isBugBountyPresent: optBool,
  isPenetrationTestingPresent: optBool,
};

export const exchangeRecord = z.object({
  slug,
  name,
  type: z.string().optional(),
  country: z.string().optional(),
  established: num.optional(),
  website: z.string().optional(),
  rank: num.optional(),
  tradingVolume24h: num.optional(),
  tradingVolumeChange: num.optional(),
  ...markers,
});

const page = {
  page: num,
  page_size: num,
  total: num,
  total_pages: num,
};

export const exchangeRatingItem = z.object({
  rank: optNum,
  slug,
  name,
  pol: num,
  rating: z.string().min(1),
  tradingVolume: optNum,
  ...markers,
});

export const projectRatingItem = z.object({
  rank: optNum,
  slug,
  name,
  ticker: z.string().optional(),
  pol: num,
  rating: z.string().min(1),
  marketCap: optNum,
});

export function ratingEntry(kind: EntityKind, item: unknown): RatingEntry {
  if (kind === 'exchange') {
    const e = exchangeRatingItem.parse(item);
    return {
      kind,
      rank: e.rank,
      slug: e.slug,
      name: e.name,
      pol: e.pol,
      rating: e.rating,
      tradingVolume: e.tradingVolume,
      markers: {
        ...(e.isProofOfReservesPresent !== null ? { proofOfReserves: e.isProofOfReservesPresent } : {}),
        ...(e.isBugBountyPresent !== null ? { bugBounty: e.isBugBountyPresent } : {}),
        ...(e.isPenetrationTestingPresent !== null ? { penetrationTesting: e.isPenetrationTestingPresent } : {}),
      },
    };
  }
  const p = projectRatingItem.parse(item);
  return { kind, rank: p.rank, slug: p.slug, name: p.name, ...(p.ticker ? { ticker: p.ticker } : {}), pol: p.pol, rating: p.rating, marketCap: p.marketCap };
}

export const ratingsPage = z.object({ items: z.array(z.unknown()), ...page });
export const itemsOnly = z.object({ items: z.array(z.unknown()) });

export const ratingParameters = z.object({
  sort_by: z.union([z.object({ values: z.array(z.string()), default: z.string().optional() }), z.array(z.string())]),
  sort_direction: z
    .union([z.object({ values: z.array(z.string()).optional(), default: z.enum(['ASC', 'DESC']).optional() }), z.array(z.string())])
    .optional(),
  filters: z.array(z.object({ name: z.string(), type: z.string(), values: z.array(z.string()).optional() })).optional().default([]),
});

export const ratingTokens = z.object({ items: z.array(z.object({ id: num, name, ticker: z.string() })) });

export const exchangeTransparency = z.object({
  score: qualityScore.optional(),
  isProofOfReservesPresent: optBool,
  auditor: optStr,
  lastAuditAt: optStr,
  isTeamPublic: optBool,
  isOrderBookPublic: optBool,
});

export const exchangeSecurity = z.object({
  score: qualityScore.optional(),
  isBugBountyPresent: optBool,
  bugBountyMaxUsd: optNum,
  isPenetrationTestingPresent: optBool,
  lastPenetrationTestAt: optStr,
  isIso27001Present: optBool,
  isSoc2Present: optBool,
});

export const exchangeSolvency = z.object({
  score: qualityScore.optional(),
  isProofOfReservesPresent: optBool,
  reservesUsd: optNum,
  liabilitiesUsd: optNum,
  reserveRatio: optNum,
});

export const reservesPoint = z.object({ timestamp, reserves: num, liabilities: num });

export const listedAsset = z.object({
  id: num,
  name,
  ticker: z.string(),
  categories: z
    .array(z.union([z.string(), z.object({ name: z.string() })]))
    .optional()
    .default([])
    .transform((cs) => cs.map((c) => (typeof c === 'string' ? c : c.name))),
  marketCap: optNum,
  polScore: optNum,
});

export const assetCategories = z.object({
  items: z.array(z.object({ id: z.union([z.string(), num]).transform(String), name, count: optNum })),
});

export const dashboard = exchangeRecord.extend({
  pol: optNum,
  rating: optStr,
  categories: byCategory.shape.categories.optional().default([]),
  reserves: z.object({ reservesUsd: num, liabilitiesUsd: num, reserveRatio: num }).nullable().optional(),
  listedAssetsCount: optNum,
});

export const lostFunds = z.object({
  totalUsd: num,
  incidents: z.array(
    z.object({ exchange: z.string(), slug: z.string().nullable().optional(), date: z.string(), amountUsd: num, cause: z.string().optional().default('') }),
  ),
  byYear: z.array(z.object({ year: num, amountUsd: num, incidents: num })).optional().default([]),
});

export const transparencyStats = z.object({
  exchanges: num,
  withProofOfReserves: num,
  withBugBounty: num,
  withPenetrationTesting: num,
  averageTransparencyScore: optNum,
});

export const projectSecurity = z.object({
  certifications: z
    .object({ isIso27001Present: optBool, isCcssPresent: optBool, ccssLevel: optNum, isSoc2Present: optBool })
    .optional()
    .default({ isIso27001Present: null, isCcssPresent: null, ccssLevel: null, isSoc2Present: null }),
});


export const projectReputational = z.object({
  mmRedFlags: findings,
  investorRedFlags: findings,
  social: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])).optional().default({}),
});

export const projectRegulatory = z.object({
  isPublicRegistrationPresent: optBool,
  jurisdictionQuality: jurisdictionTier,
  jurisdiction: z.string().optional(),
});

export const projectOperational = z.object({
  projectLaunchedAt: optStr,
  protocolLaunchedAt: optStr,
  github: z
    .object({ heatmap: z.array(z.array(num)).optional().default([]), commitsCount7d: optNum })
    .optional()
    .default({ heatmap: [], commitsCount7d: null }),
  team: z
    .object({ isEducationRelevant: optBool, isWorkExperienceRelevant: optBool, isBusinessExperienceRelevant: optBool })
    .optional()
    .default({ isEducationRelevant: null, isWorkExperienceRelevant: null, isBusinessExperienceRelevant: null }),
});

const review = z.object({ author: z.string(), content: z.string(), publishedAt: optStr });

export const proofOfVoice = z.object({
  pros: findings,
  cons: findings,
  reviews: z
    .union([z.array(review), z.string(), z.null()])
    .optional()
    .transform((v) => (Array.isArray(v) ? v : [])),
});

/** Chart points of a single series; the value key differs by route (`score`, `inflation`, `value`). */
export const valuePoint = (key: string) =>
  z
    .object({ timestamp })
    .catchall(z.unknown())
    .transform((p, ctx) => {
      const parsed = num.safeParse(p[key] ?? p.value);
      if (!parsed.success) {
        ctx.addIssue({ code: 'custom', message: `point has no numeric ${key}` });
        return z.NEVER;
      }
      return { timestamp: p.timestamp, value: parsed.data };
    });

export const health = z.object({
  status: z.string(),
  checks: z
    .union([
      z.array(z.object({ name: z.string(), status: z.string() })),
      z.record(z.string(), z.union([z.string(), z.object({ status: z.string() })])),
    ])
    .optional(),
});
