import type { Confidence, ExchangeCategory, ProjectCategory } from './scales.js';

/** `none_identified` is the upstream's own word for "looked, found nothing"; never a failed fetch. */
export type Findings = string[] | 'none_identified';

export interface CategorySeries {
  /** Daily quality score (0..100, higher is better), aligned with `SimData.days`. */
  scores: number[];
  confidence: Confidence;
}

export interface MetricDef {
  metric: string;
  category: string;
  label: string;
  weight: number;
  /** Offset from the category score, so metric histories move with their category. */
  offset: number;
}

interface EntityBase {
  slug: string;
  name: string;
  /** Daily PoL (probability of loss, 0..1, lower is safer), aligned with `SimData.days`. */
  pol: number[];
  metrics: MetricDef[];
}

export interface SimProject extends EntityBase {
  kind: 'project';
  ticker: string;
  category: string;
  chains: string[];
  compliance: 'registered' | 'unregistered';
  categories: Record<ProjectCategory, CategorySeries>;
  market: { price: number; marketCap: number; volume24h: number; priceChange24h: number; circulatingSupply: number };
  launchedAt: string;
  protocolLaunchedAt: string;
  redFlags: { mm: Findings; investor: Findings };
  social: Record<string, number | string>;
  registration: { isPublicRegistrationPresent: boolean; jurisdictionQuality: 1 | 2 | 3 | 4 | '' | 'not_returned'; jurisdiction: string };
  certifications: { isIso27001Present: boolean; isCcssPresent: boolean; ccssLevel: number | null; isSoc2Present: boolean };
  team: { isEducationRelevant: boolean; isWorkExperienceRelevant: boolean; isBusinessExperienceRelevant: boolean };
  github: { heatmap: number[][]; commitsCount7d: number; repository: string };
  voice: { pros: Findings; cons: Findings; reviews: { author: string; content: string; publishedAt: string }[] | 'none_identified' };
  /** Daily Proof of Voice score (0..100) and annualised supply inflation (%). */
  voiceScores: number[];
  inflation: number[];
  audits: { auditor: string; date: string }[];
}

export interface SimExchange extends EntityBase {
  kind: 'exchange';
  country: string;
  established: number;
  type: 'cex' | 'dex';
  categories: Record<ExchangeCategory, CategorySeries>;
  markers: { isProofOfReservesPresent: boolean; isBugBountyPresent: boolean; isPenetrationTestingPresent: boolean };
  tradingVolume: number;
  tradingVolumeChange: number;
  /** Token ids (see SimData.tokens) listed on the exchange. */
  listed: number[];
  /** Daily reserves and liabilities in USD; empty when the exchange publishes no proof of reserves. */
  reserves: number[];
  liabilities: number[];
  security: { bugBountyMaxUsd: number | null; lastPenetrationTestAt: string | null; isIso27001Present: boolean; isSoc2Present: boolean };
  transparency: { auditor: string | null; lastAuditAt: string | null; isTeamPublic: boolean; isOrderBookPublic: boolean };
}

export type SimEntity = SimProject | SimExchange;

export interface SimToken {
  id: number;
  name: string;
  ticker: string;
  category: string;
  marketCap: number;
  /** PoL when generated; a listing reports the project's current PoL instead, when there is one (`SimStore.tokenPol`). */
  polScore: number;
  /** Slug of the rated project behind the token, when there is one. */
  projectSlug: string | null;
}

export interface LostFundsIncident {
  exchange: string;
  slug: string | null;
  date: string;
  amountUsd: number;
  cause: string;
}

export interface SimData {
  seed: number;
  /** Unix seconds (UTC midnight) of each daily point, oldest first. */
  days: number[];
  projects: SimProject[];
  exchanges: SimExchange[];
  tokens: SimToken[];
  lostFunds: LostFundsIncident[];
  trending: { projects: string[]; exchanges: string[] };
}
