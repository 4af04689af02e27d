/**
 * polbot's own terms for upstream data. Both sources map into these types, so the command core
 * never sees a wire format. Units: PoL is a probability 0..1 (lower is safer); quality scores run
 * 0..100 (higher is better); times are Unix seconds.
 */

export type EntityKind = 'project' | 'exchange';
export type SourceName = 'rest' | 'mcp';

export interface EntityRef {
  kind: EntityKind;
  slug: string;
  name: string;
  ticker?: string;
}

/** Category quality score: higher is better. Never to be confused with PoL. */
export interface QualityScore {
  score: number;
  rating: string;
  confidence?: string;
}

/** Overall Probability of Loss: lower is safer. */
export interface PolValue {
  pol: number;
  rating: string;
  timestamp: number;
}

export interface PolPoint {
  timestamp: number;
  pol: number;
}

export interface CategoryScore {
  category: string;
  score: QualityScore;
  weight?: number;
}

export interface CategoryBreakdown {
  timestamp?: number;
  categories: CategoryScore[];
}

export interface CategoryPoint {
  timestamp: number;
  scores: Record<string, QualityScore>;
}

export interface MetricScore {
  metric: string;
  category?: string;
  label: string;
  weight?: number;
  score: QualityScore;
}

export interface MetricBreakdown {
  timestamp?: number;
  metrics: MetricScore[];
}

export interface MetricPoint {
  timestamp: number;
  metrics: Record<string, number>;
}

export interface MarketData {
  price: number | null;
  marketCap: number | null;
  volume24h?: number | null;
  priceChange24h?: number | null;
}

export interface ProjectRecord {
  kind: 'project';
  slug: string;
  name: string;
  ticker?: string;
  category?: string;
  chains: string[];
  website?: string;
  launchedAt?: string;
  market?: MarketData;
}

export interface ExchangeMarkers {
  proofOfReserves?: boolean;
  bugBounty?: boolean;
  penetrationTesting?: boolean;
}

export interface ExchangeRecord {
  kind: 'exchange';
  slug: string;
  name: string;
  type?: string;
  country?: string;
  established?: number;
  website?: string;
  rank?: number;
  tradingVolume24h?: number;
  tradingVolumeChange?: number;
  markers: ExchangeMarkers;
}

export type EntityRecord = ProjectRecord | ExchangeRecord;

/** Empty lists mean the upstream looked and found nothing (`none_identified`). */
export interface RedFlags {
  marketMaker: string[];
  investor: string[];
}

export interface SocialSignals {
  /** Upstream fields as given (followers, bot shares, trends, ...); shapes beyond these are not documented. */
  metrics: Record<string, number | string | boolean>;
}

export interface Registration {
  publicRegistration: boolean | null;
  /** 1 (strictest) to 4; null when the upstream has no value (`not_returned` or empty). */
  jurisdictionTier: 1 | 2 | 3 | 4 | null;
  jurisdiction?: string;
}

export interface Certifications {
  iso27001: boolean | null;
  ccss: boolean | null;
  ccssLevel: number | null;
  soc2: boolean | null;
}

export interface TeamRecord {
  educationRelevant: boolean | null;
  workExperienceRelevant: boolean | null;
  businessExperienceRelevant: boolean | null;
}

export interface GithubActivity {
  commitsCount7d: number | null;
  /** Weeks of daily commit counts, oldest first, when the upstream gives them. */
  heatmap: number[][];
}

export interface ProjectAge {
  projectLaunchedAt: string | null;
  protocolLaunchedAt: string | null;
}

export interface VoiceProsCons {
  pros: string[];
  cons: string[];
}

export interface ExpertReview {
  author: string;
  content: string;
  publishedAt: string | null;
}

export interface ValuePoint {
  timestamp: number;
  value: number;
}

export interface ReservesPoint {
  timestamp: number;
  reserves: number;
  liabilities: number;
}

export interface ExchangeTransparency {
  score?: QualityScore;
  proofOfReserves: boolean | null;
  auditor: string | null;
  lastAuditAt: string | null;
  teamPublic: boolean | null;
  orderBookPublic: boolean | null;
}

export interface ExchangeSecurity {
  score?: QualityScore;
  bugBounty: boolean | null;
  bugBountyMaxUsd: number | null;
  penetrationTesting: boolean | null;
  lastPenetrationTestAt: string | null;
  iso27001: boolean | null;
  soc2: boolean | null;
}

export interface ExchangeSolvency {
  score?: QualityScore;
  proofOfReserves: boolean | null;
  reservesUsd: number | null;
  liabilitiesUsd: number | null;
  reserveRatio: number | null;
}

export interface ExchangeDashboard {
  record: ExchangeRecord;
  pol: number | null;
  rating: string | null;
  categories: CategoryScore[];
  reserves: { reservesUsd: number; liabilitiesUsd: number; reserveRatio: number } | null;
  listedAssetsCount: number | null;
}

export interface ListedAsset {
  id: number;
  name: string;
  ticker: string;
  categories: string[];
  marketCap: number | null;
  polScore: number | null;
}

export interface AssetCategory {
  id: string;
  name: string;
  count: number | null;
}

export interface Page<T> {
  items: T[];
  page: number;
  pageSize: number;
  total: number;
  totalPages: number;
}

export interface RatingEntry {
  kind: EntityKind;
  rank: number | null;
  slug: string;
  name: string;
  ticker?: string;
  pol: number;
  rating: string;
  marketCap?: number | null;
  tradingVolume?: number | null;
  markers?: ExchangeMarkers;
}

export interface RatingsQuery {
  page?: number;
  pageSize?: number;
  sortBy?: string;
  sortDirection?: 'ASC' | 'DESC';
  /** Service-specific filters, passed through as query parameters (arrays as repeated keys). */
  filters?: Record<string, string | number | boolean | (string | number)[]>;
}

export interface ListedAssetsQuery {
  page?: number;
  pageSize?: number;
  search?: string;
  categories?: string[];
  sortBy?: 'name' | 'marketCap' | 'polScore';
  sortDirection?: 'ASC' | 'DESC';
}

export interface RatingParameters {
  sortBy: string[];
  sortByDefault?: string;
  sortDirectionDefault?: 'ASC' | 'DESC';
  filters: { name: string; type: string; values?: string[] }[];
}

export interface RatingToken {
  id: number;
  name: string;
  ticker: string;
}

export interface LostFunds {
  totalUsd: number;
  incidents: { exchange: string; slug: string | null; date: string; amountUsd: number; cause: string }[];
  byYear: { year: number; amountUsd: number; incidents: number }[];
}

export interface TransparencyStats {
  exchanges: number;
  withProofOfReserves: number;
  withBugBounty: number;
  withPenetrationTesting: number;
  averageTransparencyScore: number | null;
}

export interface IndexPol {
  pol: number;
  rating: string;
  entities: number | null;
  timestamp: number | null;
}

export interface HealthStatus {
  healthy: boolean;
  checks: { name: string; ok: boolean }[];
}

/** What `resolve_project_slug` (or our own resolver) says about a query. */
export interface ProjectResolution {
  status: 'resolved' | 'ambiguous' | 'not_found';
  query: string;
  resolved?: EntityRef;
  matches: EntityRef[];
}
