import type { DataMethod } from '../source.js';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

/**
 * How long each kind of data stays fresh. Lists change rarely; current values move with the
 * upstream's computation cycle; histories only grow at the end.
 */
export const TTL_MS: Record<DataMethod, number> = {
  list: 10 * MINUTE,
  trending: 5 * MINUTE,
  search: 5 * MINUTE,
  resolveProject: 10 * MINUTE,
  record: 5 * MINUTE,
  ratingParameters: 30 * MINUTE,
  ratingTokens: 30 * MINUTE,
  listedAssetCategories: 30 * MINUTE,

  polCurrent: MINUTE,
  byCategory: MINUTE,
  categoryScore: MINUTE,
  byMetric: MINUTE,
  indexPol: MINUTE,
  ratings: MINUTE,
  topRatings: MINUTE,
  marketData: MINUTE,
  dashboard: MINUTE,
  listedAssets: 5 * MINUTE,

  polHistory: 15 * MINUTE,
  polChart: 15 * MINUTE,
  byCategoryHistory: 15 * MINUTE,
  byCategoryChart: 15 * MINUTE,
  byMetricHistory: 15 * MINUTE,
  byMetricChart: 15 * MINUTE,
  indexPolHistory: 15 * MINUTE,
  indexPolChart: 15 * MINUTE,
  liabilitiesReservesChart: 15 * MINUTE,
  voiceChart: 15 * MINUTE,
  inflationChart: 15 * MINUTE,

  exchangeTransparency: 5 * MINUTE,
  exchangeSecurity: 5 * MINUTE,
  exchangeSolvency: 5 * MINUTE,
  redFlags: 5 * MINUTE,
  socialFraud: 5 * MINUTE,
  registration: 5 * MINUTE,
  certifications: 5 * MINUTE,
  team: 5 * MINUTE,
  githubActivity: 5 * MINUTE,
  age: 30 * MINUTE,
  voiceProsCons: 5 * MINUTE,
  voiceReviews: 5 * MINUTE,
  projectSection: 5 * MINUTE,
  lostFunds: 30 * MINUTE,
  transparencyStats: 30 * MINUTE,

  health: 10 * SECOND,
};
