import { z } from 'zod';
import type { Checked, EntityKind, RatingEntry } from '../domain.js';
import { optional, qualityScore, readableRows, required, rows } from '../rules.js';
import { categoryPoint, findings, heatmap, num, optBool, optStr, socialSignals } from '../wire.js';

/** Response bodies of the REST services, as polbot reads them (see README: assumed shapes). */

const slug = z.string().min(1);
const name = z.string().min(1);

/** A list entry is its identity: a row without a slug or name cannot be read, the others can. */
export const entityList = z.object({
  items: rows(z.object({ slug, name, ticker: z.string().optional() })),
});

export const polPoint = z.object({ timestamp: required('timestamp'), pol: required('pol') });
export const polCurrent = z.object({ pol: required('pol'), rating: required('rating'), timestamp: optional('timestamp') });
/** Chart points are drawn whole or skipped, one by one. */
export const points = <T extends z.ZodType>(point: T) => z.object({ points: rows(point, { strict: true }) });

const categoryScore = z.object({ category: z.string().min(1), score: qualityScore, weight: optional('share') });

export const byCategory = z.object({
  timestamp: optional('timestamp'),
  categories: rows(categoryScore),
});

export { categoryPoint };

export const byMetric = z.object({
  timestamp: optional('timestamp'),
  metrics: rows(
    z.object({
      metric: z.string().min(1),
      category: z.string().optional(),
      label: z.string().optional(),
      weight: optional('share'),
      score: qualityScore,
    }),
  ),
});

export const metricPoint = z.object({ timestamp: required('timestamp'), metrics: z.record(z.string(), required('score')) });

export const indexPol = z.object({
  pol: required('pol'),
  rating: required('rating'),
  entities: optional('count'),
  timestamp: optional('timestamp'),
});

export const marketData = z.object({
  price: optional('amount'),
  marketCap: optional('amount'),
  volume24h: optional('amount'),
  priceChange24h: optional('change'),
});

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
  established: optional('count'),
  website: z.string().optional(),
  rank: optional('count'),
  tradingVolume24h: optional('amount'),
  tradingVolumeChange: optional('change'),
  ...markers,
});

/**
 * Paging figures are not risk data: one that cannot be read is left unknown (null) rather than
 * costing the page of rows it came with.
 */
const pageFigure = num
  .nullable()
  .optional()
  .catch(null)
  .transform((v) => v ?? null);
const page = {
  page: pageFigure,
  page_size: pageFigure,
  total: pageFigure,
  total_pages: pageFigure,
};

export const exchangeRatingItem = z.object({
  rank: optional('count'),
  slug,
  name,
  pol: required('pol'),
  rating: required('rating'),
  tradingVolume: optional('amount'),
  ...markers,
});

export const projectRatingItem = z.object({
  rank: optional('count'),
  slug,
  name,
  ticker: z.string().optional(),
  pol: required('pol'),
  rating: required('rating'),
  marketCap: optional('amount'),
});

const ratingItem = { exchange: rows(exchangeRatingItem), project: rows(projectRatingItem) };

/** A ratings list, row by row: rows without an identity are skipped (and counted), the others kept. */
export function ratingItems(kind: EntityKind) {
  return ratingItem[kind];
}

export function ratingEntries(kind: EntityKind, items: z.output<(typeof ratingItem)[EntityKind]>): RatingEntry[] {
  return readableRows(items as z.output<typeof ratingItem.project>).map((i) => ratingEntry(kind, i));
}

function ratingEntry(kind: EntityKind, item: unknown): RatingEntry {
  if (kind === 'exchange') {
    const e = item as z.output<typeof exchangeRatingItem>;
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
  const p = item as z.output<typeof projectRatingItem>;
  return {
    kind,
    rank: p.rank,
    slug: p.slug,
    name: p.name,
    ...(p.ticker ? { ticker: p.ticker } : {}),
    pol: p.pol,
    rating: p.rating,
    marketCap: p.marketCap,
  };
}

export const ratingsPage = (kind: EntityKind) => z.object({ items: ratingItems(kind), ...page });
export const topRatings = z.object({ items: ratingItems('exchange') });

export const ratingParameters = z.object({
  sort_by: z.union([z.object({ values: z.array(z.string()), default: z.string().optional() }), z.array(z.string())]),
  sort_direction: z
    .union([z.object({ values: z.array(z.string()).optional(), default: z.enum(['ASC', 'DESC']).optional() }), z.array(z.string())])
    .optional(),
  filters: z
    .array(z.object({ name: z.string(), type: z.string(), values: z.array(z.string()).optional() }))
    .optional()
    .default([]),
});

export const ratingTokens = z.object({ items: rows(z.object({ id: num, name, ticker: z.string() })) });

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
  bugBountyMaxUsd: optional('amount'),
  isPenetrationTestingPresent: optBool,
  lastPenetrationTestAt: optStr,
  isIso27001Present: optBool,
  isSoc2Present: optBool,
});

export const exchangeSolvency = z.object({
  score: qualityScore.optional(),
  isProofOfReservesPresent: optBool,
  reservesUsd: optional('amount'),
  liabilitiesUsd: optional('amount'),
  reserveRatio: optional('amount'),
});

export const reservesPoint = z.object({ timestamp: required('timestamp'), reserves: required('amount'), liabilities: required('amount') });

const listedAsset = z.object({
  id: num,
  name,
  ticker: z.string(),
  categories: z
    .array(z.union([z.string(), z.object({ name: z.string() })]))
    .optional()
    .default([])
    .transform((cs) => cs.map((c) => (typeof c === 'string' ? c : c.name))),
  marketCap: optional('amount'),
  polScore: optional('pol'),
});

export const listedAssetsPage = z.object({ items: rows(listedAsset), ...page });

export const assetCategories = z.object({
  items: rows(z.object({ id: z.union([z.string(), num]).transform(String), name, count: optional('count') })),
});

export const dashboard = exchangeRecord.extend({
  pol: optional('pol'),
  rating: optional('rating'),
  categories: rows(categoryScore).optional().default([]),
  reserves: z
    .object({ reservesUsd: required('amount'), liabilitiesUsd: required('amount'), reserveRatio: required('amount') })
    .nullable()
    .optional(),
  listedAssetsCount: optional('count'),
});

export const lostFunds = z.object({
  totalUsd: required('amount'),
  incidents: rows(
    z.object({
      exchange: z.string(),
      slug: z.string().nullable().optional(),
      date: z.string(),
      amountUsd: required('amount'),
      cause: z.string().optional().default(''),
    }),
  ),
  byYear: rows(z.object({ year: num, amountUsd: required('amount'), incidents: required('count') }), { strict: true })
    .optional()
    .default([]),
});

export const transparencyStats = z.object({
  exchanges: required('count'),
  withProofOfReserves: required('count'),
  withBugBounty: required('count'),
  withPenetrationTesting: required('count'),
  averageTransparencyScore: optional('score'),
});

export const projectSecurity = z.object({
  certifications: z
    .object({ isIso27001Present: optBool, isCcssPresent: optBool, ccssLevel: optional('count'), isSoc2Present: optBool })
    .optional()
    .default({ isIso27001Present: null, isCcssPresent: null, ccssLevel: null, isSoc2Present: null }),
});

export const projectReputational = z.object({
  mmRedFlags: findings,
  investorRedFlags: findings,
  social: socialSignals,
});

export const projectRegulatory = z.object({
  isPublicRegistrationPresent: optBool,
  jurisdictionQuality: optional('jurisdictionTier'),
  jurisdiction: z.string().optional(),
});

export const projectOperational = z.object({
  projectLaunchedAt: optStr,
  protocolLaunchedAt: optStr,
  github: z
    .object({ heatmap: heatmap, commitsCount7d: optional('count') })
    .optional()
    .default({ heatmap: [], commitsCount7d: null }),
  team: z
    .object({ isEducationRelevant: optBool, isWorkExperienceRelevant: optBool, isBusinessExperienceRelevant: optBool })
    .optional()
    .default({ isEducationRelevant: null, isWorkExperienceRelevant: null, isBusinessExperienceRelevant: null }),
});

/** Any project section: its score and the facts only the section carries. */
export const projectSection = z.object({
  score: qualityScore
    .nullable()
    .optional()
    .catch(null)
    .transform((v) => v ?? null),
  voiceScore: optional('score'),
  audits: rows(z.object({ auditor: z.string().min(1), date: optStr }))
    .optional()
    .default([]),
  inflationRate: optional('change'),
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
export const valuePoint = (key: string, rule: z.ZodType<Checked<number>>) =>
  z
    .object({ timestamp: required('timestamp') })
    .catchall(z.unknown())
    .transform((p, ctx) => {
      const value = rule.safeParse(p[key] ?? p.value);
      if (!value.success) {
        ctx.addIssue({ code: 'custom', message: `point has no ${key}` });
        return z.NEVER;
      }
      return { timestamp: p.timestamp, value: value.data };
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
