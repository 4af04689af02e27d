/** Rating scales used by the simulated upstream. The real thresholds are not published; these are plausible. */
export const RATINGS = ['AAA', 'AA', 'A', 'BBB', 'BB', 'B', 'CCC', 'CC', 'C', 'D'] as const;
export type Rating = (typeof RATINGS)[number];

export const CONFIDENCES = ['Exceptional', 'High', 'Moderate', 'Low'] as const;
export type Confidence = (typeof CONFIDENCES)[number];

export const PROJECT_CATEGORIES = ['security', 'financial', 'operational', 'reputational', 'regulatory'] as const;
export const EXCHANGE_CATEGORIES = ['security', 'transparency', 'solvency'] as const;
export type ProjectCategory = (typeof PROJECT_CATEGORIES)[number];
export type ExchangeCategory = (typeof EXCHANGE_CATEGORIES)[number];

/** Upper PoL bound (exclusive) of each rating: lower PoL is safer. */
const POL_BOUNDS: readonly number[] = [0.005, 0.01, 0.02, 0.04, 0.08, 0.15, 0.25, 0.4, 0.6];

export function ratingForPol(pol: number): Rating {
  const i = POL_BOUNDS.findIndex((bound) => pol < bound);
  return RATINGS[i === -1 ? RATINGS.length - 1 : i] as Rating;
}

/** Category quality scores run 0..100, higher is better. */
export function ratingForScore(score: number): Rating {
  if (score >= 90) return 'AAA';
  const i = Math.min(RATINGS.length - 1, Math.max(1, 9 - Math.floor(score / 10)));
  return RATINGS[i] as Rating;
}

/** PoL as a function of the weighted average quality score: convex, so weak entities are far riskier. */
export function polForScore(avgScore: number): number {
  const weakness = 1 - Math.min(100, Math.max(0, avgScore)) / 100;
  return 0.0008 + 0.96 * weakness ** 2.6;
}

export function round(value: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}

export const DAY = 86_400;
