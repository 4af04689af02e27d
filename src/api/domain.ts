/**
 * polbot's own terms for upstream data. Both sources map into these types, so the command core
 * never sees a wire format. Units: PoL is a probability 0..1 (lower is safer); quality scores run
 * 0..100 (higher is better); times are Unix seconds.
 */

export type EntityKind = 'project' | 'exchange';

export type UnreadableReason = 'missing' | 'not a number' | 'out of range' | 'not on the scale' | 'wrong type' | 'unreadable row';

/**
 * A value the upstream sent outside its domain (see `rules.ts`), kept in its place so that the
 * reply can say "unreadable (out of range)" there and show everything else.
 */
export interface Unreadable {
  readonly unreadable: true;
  readonly reason: UnreadableReason;
  /** What was sent, for the operators' log only. */
  readonly value?: unknown;
}

export type Checked<T> = T | Unreadable;

/** `T` with every `Checked` part known to be readable (a chart point that passed as a whole). */
export type Readable<T> = T extends Unreadable
  ? never
  : T extends readonly (infer E)[]
    ? Readable<E>[]
    : T extends object
      ? { [K in keyof T]: Readable<T[K]> }
      : T;

export function unreadable(reason: UnreadableReason, value?: unknown): Unreadable {
  return value === undefined ? { unreadable: true, reason } : { unreadable: true, reason, value };
}

export function isUnreadable(v: unknown): v is Unreadable {
  return typeof v === 'object' && v !== null && (v as { unreadable?: unknown }).unreadable === true;
}

/** The value when it could be read. */
export const readable = <T>(v: Checked<T> | undefined): T | undefined => (v === undefined || isUnreadable(v) ? undefined : v);
export type SourceName = 'rest' | 'mcp';

export interface EntityRef {
  kind: EntityKind;
  slug: string;
  name: string;
  ticker?: string;
}

/** Category quality score: higher is better. Never to be confused with PoL. */
export interface QualityScore {
  score: Checked<number>;
  rating: Checked<string>;
  confidence?: Checked<string>;
}

/** A score within a chart point, which is drawn whole or skipped. */
export type PointScore = Readable<QualityScore>;

/** Overall Probability of Loss: lower is safer. */
export interface PolValue {
  pol: Checked<number>;
  rating: Checked<string>;
  /** Null when the upstream gave none that could be read. */
  timestamp: number | null;
}

export interface PolPoint {
  timestamp: number;
  pol: number;
}

export interface CategoryScore {
  category: string;
  score: QualityScore;
  weight?: Checked<number>;
}

export interface CategoryBreakdown {
  timestamp?: number;
  categories: CategoryScore[];
}

export interface CategoryPoint {
  timestamp: number;
  scores: Record<string, PointScore>;
}

export interface MetricScore {
  metric: string;
  category?: string;
  label: string;
  weight?: Checked<number>;
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
  price: Checked<number> | null;
  marketCap: Checked<number> | null;
  volume24h?: Checked<number> | null;
  priceChange24h?: Checked<number> | null;
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
  proofOfReserves?: Checked<boolean>;
  bugBounty?: Checked<boolean>;
  penetrationTesting?: Checked<boolean>;
}

export interface ExchangeRecord {
  kind: 'exchange';
  slug: string;
  name: string;
  type?: string;
  country?: string;
  established?: Checked<number>;
  website?: string;
  rank?: Checked<number>;
  tradingVolume24h?: Checked<number>;
  tradingVolumeChange?: Checked<number>;
  markers: ExchangeMarkers;
}

export type EntityRecord = ProjectRecord | ExchangeRecord;

/** Empty lists mean the upstream looked and found nothing (`none_identified`). */
export interface RedFlags {
  marketMaker: Checked<string[]>;
  investor: Checked<string[]>;
}

export interface SocialSignals {
  /** Upstream fields as given (followers, bot shares, trends, ...); shapes beyond these are not documented. */
  metrics: Record<string, Checked<number> | string | boolean>;
}

export interface Registration {
  publicRegistration: Checked<boolean> | null;
  /** 1 (strictest) to 4; null when the upstream has no value (`not_returned` or empty). */
  jurisdictionTier: Checked<1 | 2 | 3 | 4 | null>;
  jurisdiction?: string;
}

export interface Certifications {
  iso27001: Checked<boolean> | null;
  ccss: Checked<boolean> | null;
  ccssLevel: Checked<number> | null;
  soc2: Checked<boolean> | null;
}

export interface TeamRecord {
  educationRelevant: Checked<boolean> | null;
  workExperienceRelevant: Checked<boolean> | null;
  businessExperienceRelevant: Checked<boolean> | null;
}

export interface GithubActivity {
  commitsCount7d: Checked<number> | null;
  /** Weeks of daily commit counts, oldest first, when the upstream gives them. */
  heatmap: number[][];
}

export interface ProjectAge {
  projectLaunchedAt: string | null;
  protocolLaunchedAt: string | null;
}

export interface VoiceProsCons {
  pros: Checked<string[]>;
  cons: Checked<string[]>;
}

/** The categories each kind of entity is scored in (the tool server has one score tool per category). */
export const PROJECT_CATEGORIES = ['security', 'financial', 'operational', 'reputational', 'regulatory'] as const;
export const EXCHANGE_CATEGORIES = ['security', 'transparency', 'solvency'] as const;

/** A project's sections as the REST service names them (`/v1/{slug}/<section>`). */
export const PROJECT_SECTIONS = ['security', 'financial', 'operational', 'reputational', 'regulatory', 'proof_of_voice'] as const;
export type ProjectSection = (typeof PROJECT_SECTIONS)[number];

/** What a project section holds beyond the parts other operations read from it. */
export interface ProjectSectionFacts {
  /** The section's category quality score (0..100, higher is better); null for Proof of Voice. */
  score: QualityScore | null;
  /** Proof of Voice's own score (0..100, higher is better). */
  voiceScore: Checked<number> | null;
  /** Security audits: who audited and when. */
  audits: { auditor: string; date: string | null }[];
  /** The financial section's inflation rate, in percent a year. */
  inflationRate: Checked<number> | null;
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
  proofOfReserves: Checked<boolean> | null;
  auditor: string | null;
  lastAuditAt: string | null;
  teamPublic: Checked<boolean> | null;
  orderBookPublic: Checked<boolean> | null;
}

export interface ExchangeSecurity {
  score?: QualityScore;
  bugBounty: Checked<boolean> | null;
  bugBountyMaxUsd: Checked<number> | null;
  penetrationTesting: Checked<boolean> | null;
  lastPenetrationTestAt: string | null;
  iso27001: Checked<boolean> | null;
  soc2: Checked<boolean> | null;
}

export interface ExchangeSolvency {
  score?: QualityScore;
  proofOfReserves: Checked<boolean> | null;
  reservesUsd: Checked<number> | null;
  liabilitiesUsd: Checked<number> | null;
  reserveRatio: Checked<number> | null;
}

export interface ExchangeDashboard {
  record: ExchangeRecord;
  pol: Checked<number> | null;
  rating: Checked<string> | null;
  categories: CategoryScore[];
  reserves: { reservesUsd: Checked<number>; liabilitiesUsd: Checked<number>; reserveRatio: Checked<number> } | null;
  listedAssetsCount: Checked<number> | null;
}

export interface ListedAsset {
  id: number;
  name: string;
  ticker: string;
  categories: string[];
  marketCap: Checked<number> | null;
  polScore: Checked<number> | null;
}

export interface AssetCategory {
  id: string;
  name: string;
  count: Checked<number> | null;
}

/** A page of a list; a paging figure the upstream left out or sent unreadable is null. */
export interface Page<T> {
  items: T[];
  page: number | null;
  pageSize: number | null;
  total: number | null;
  totalPages: number | null;
}

export interface RatingEntry {
  kind: EntityKind;
  rank: Checked<number> | null;
  slug: string;
  name: string;
  ticker?: string;
  pol: Checked<number>;
  rating: Checked<string>;
  marketCap?: Checked<number> | null;
  tradingVolume?: Checked<number> | null;
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
  totalUsd: Checked<number>;
  incidents: { exchange: string; slug: string | null; date: string; amountUsd: Checked<number>; cause: string }[];
  byYear: { year: number; amountUsd: number; incidents: number }[];
}

export interface TransparencyStats {
  exchanges: Checked<number>;
  withProofOfReserves: Checked<number>;
  withBugBounty: Checked<number>;
  withPenetrationTesting: Checked<number>;
  averageTransparencyScore: Checked<number> | null;
}

export interface IndexPol {
  pol: Checked<number>;
  rating: Checked<string>;
  entities: Checked<number> | null;
  timestamp: Checked<number> | null;
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
