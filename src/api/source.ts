import type {
  AssetCategory,
  CategoryBreakdown,
  CategoryPoint,
  Certifications,
  EntityKind,
  EntityRecord,
  EntityRef,
  ExchangeDashboard,
  ExchangeSecurity,
  ExchangeSolvency,
  ExchangeTransparency,
  ExpertReview,
  GithubActivity,
  HealthStatus,
  IndexPol,
  ListedAsset,
  ListedAssetsQuery,
  LostFunds,
  MarketData,
  MetricBreakdown,
  MetricPoint,
  Page,
  PolPoint,
  PolValue,
  ProjectAge,
  ProjectResolution,
  ProjectSection,
  ProjectSectionFacts,
  QualityScore,
  RatingEntry,
  RatingParameters,
  RatingsQuery,
  RatingToken,
  RedFlags,
  Registration,
  ReservesPoint,
  SocialSignals,
  SourceName,
  TeamRecord,
  TransparencyStats,
  ValuePoint,
  VoiceProsCons,
} from './domain.js';

/** Where a value came from and how fresh it is; every card footer is built from these. */
export interface Meta {
  source: SourceName;
  /** Epoch milliseconds when the upstream answered. */
  fetchedAt: number;
  /** The upstream marked the data as simulated (demo mode). */
  simulated: boolean;
  /** Set when the cache served a value after the upstream failed. */
  stale?: { ageMs: number; reason: string };
  /** Fields outside their domain (shown as unreadable) and list rows skipped, when there were any. */
  unreadable?: {
    route: string;
    fields: string[];
    rows: number;
    /** The first field and why, as a diagnosis names it (`pol: missing`). */
    first?: string;
  };
}

export interface Fetched<T> {
  data: T;
  meta: Meta;
}

type F<T> = Promise<Fetched<T>>;

/**
 * Everything a card, chart or digest needs, in domain terms. Implemented by RestSource and
 * McpSource; the cache sits in front of either with the same interface.
 */
export interface DataSource {
  readonly name: SourceName;
  /**
   * Whether this source can answer `method` at all (for `kind`, where it matters): the tool
   * server alone has no tool for overall PoL, histories or exchange lists. Commands offer only
   * buttons that can be answered, rather than buttons that fail when clicked.
   */
  supports(method: DataMethod, kind?: EntityKind): boolean;

  // Entities, lists, search
  list(kind: EntityKind): F<EntityRef[]>;
  search(kind: EntityKind, text: string): F<EntityRef[]>;
  trending(kind: EntityKind): F<EntityRef[]>;
  record(kind: EntityKind, slug: string): F<EntityRecord>;
  /** Project resolution as the upstream does it (MCP `resolve_project_slug`); REST sources return null. */
  resolveProject(query: string): F<ProjectResolution | null>;

  // PoL and its breakdowns
  polCurrent(kind: EntityKind, slug: string): F<PolValue>;
  polHistory(kind: EntityKind, slug: string, from: number, to: number): F<PolPoint[]>;
  polChart(kind: EntityKind, slug: string, days?: number): F<PolPoint[]>;
  byCategory(kind: EntityKind, slug: string): F<CategoryBreakdown>;
  byCategoryHistory(kind: EntityKind, slug: string, from: number, to: number): F<CategoryPoint[]>;
  byCategoryChart(kind: EntityKind, slug: string, days?: number): F<CategoryPoint[]>;
  /** One category's quality score (the MCP score tools' slice of by_category). */
  categoryScore(kind: EntityKind, slug: string, category: string): F<QualityScore>;
  byMetric(kind: EntityKind, slug: string): F<MetricBreakdown>;
  byMetricHistory(kind: EntityKind, slug: string, from: number, to: number): F<MetricPoint[]>;
  byMetricChart(kind: EntityKind, slug: string, days?: number): F<MetricPoint[]>;
  indexPol(kind: EntityKind): F<IndexPol>;
  indexPolHistory(from: number, to: number): F<PolPoint[]>;
  indexPolChart(days?: number): F<PolPoint[]>;

  // Ratings
  ratings(kind: EntityKind, query?: RatingsQuery): F<Page<RatingEntry>>;
  ratingParameters(kind: EntityKind): F<RatingParameters>;
  topRatings(): F<RatingEntry[]>;
  ratingTokens(search?: string): F<RatingToken[]>;

  // Exchanges
  exchangeTransparency(slug: string): F<ExchangeTransparency>;
  exchangeSecurity(slug: string): F<ExchangeSecurity>;
  exchangeSolvency(slug: string): F<ExchangeSolvency>;
  liabilitiesReservesChart(slug: string, days?: number): F<ReservesPoint[]>;
  listedAssets(slug: string, query?: ListedAssetsQuery): F<Page<ListedAsset>>;
  listedAssetCategories(slug: string): F<AssetCategory[]>;
  dashboard(slug: string): F<ExchangeDashboard>;
  lostFunds(): F<LostFunds>;
  transparencyStats(): F<TransparencyStats>;

  // Projects
  redFlags(slug: string): F<RedFlags>;
  socialFraud(slug: string): F<SocialSignals>;
  registration(slug: string): F<Registration>;
  certifications(slug: string): F<Certifications>;
  team(slug: string): F<TeamRecord>;
  githubActivity(slug: string): F<GithubActivity>;
  age(slug: string): F<ProjectAge>;
  marketData(slug: string): F<MarketData>;
  voiceProsCons(slug: string): F<VoiceProsCons>;
  voiceReviews(slug: string): F<ExpertReview[]>;
  voiceChart(slug: string, days?: number): F<ValuePoint[]>;
  /** A section's own score and the facts no other operation reads (audits, inflation rate). */
  projectSection(slug: string, section: ProjectSection): F<ProjectSectionFacts>;
  inflationChart(slug: string, days?: number): F<ValuePoint[]>;

  health(): F<HealthStatus>;
  close(): Promise<void>;
}

/** Methods whose names the cache and metrics use as "kinds" of data. */
export type DataMethod = Exclude<keyof DataSource, 'name' | 'close' | 'supports'>;
