import type { z } from 'zod';
import type * as D from '../domain.js';
import { badResponse, UpstreamError } from '../errors.js';
import type { DataMethod, DataSource, Fetched } from '../source.js';
import { assertAbout, readAnswer, type OnUnreadable } from '../read-answer.js';
import { readable } from '../domain.js';
import { readableRows, required } from '../rules.js';
import { HttpClient, type HttpClientOptions, type QueryParams } from './http.js';
import { routePath, type Service } from './paths.js';
import * as S from './schemas.js';

const SERVICE: Record<D.EntityKind, Service> = { project: 'projects_data', exchange: 'exchanges_data' };

const statusFromHealth = (status: string) => /^(ok|healthy|up|pass)$/i.test(status);

/** Direct REST access to both services through the gateway. */
export interface RestSourceOptions extends HttpClientOptions {
  /** Called for every answer that held values outside their domain, for the log and metrics. */
  onUnreadable?: OnUnreadable;
}

export class RestSource implements DataSource {
  readonly name = 'rest' as const;

  /**
   * Everything but resolution: the REST service has no resolution route, and its answer to
   * `resolveProject` (null: match against the lists) is no stand-in for the tool server's.
   */
  supports(method: DataMethod): boolean {
    return method !== 'resolveProject';
  }
  readonly http: HttpClient;
  private readonly onUnreadable: OnUnreadable | undefined;

  constructor(options: RestSourceOptions) {
    this.http = new HttpClient(options);
    this.onUnreadable = options.onUnreadable;
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private async get<T extends z.ZodType, R>(
    service: Service,
    template: string,
    slug: string | undefined,
    query: QueryParams,
    schema: T,
    map: (parsed: z.output<T>) => R,
    options: { retry?: boolean } = {},
  ): Promise<Fetched<R>> {
    const route = `${service} ${template}`;
    const path = routePath(service, template, slug);
    const { body, simulated } = await this.http.getJson(path, query, route, options);
    if (slug !== undefined) assertAbout(route, body, slug, ['slug']);
    const { value, unreadable } = readAnswer(route, schema, body, this.onUnreadable);
    let data: R;
    try {
      data = map(value);
    } catch (err) {
      throw badResponse(route, (err as Error).message);
    }
    return { data, meta: { source: 'rest', fetchedAt: Date.now(), simulated, ...(unreadable ? { unreadable } : {}) } };
  }

  list(kind: D.EntityKind) {
    return this.get(SERVICE[kind], '/v1/list', undefined, {}, S.entityList, (b) =>
      readableRows(b.items).map((i) => ({ kind, slug: i.slug, name: i.name, ...(i.ticker ? { ticker: i.ticker } : {}) })),
    );
  }

  search(kind: D.EntityKind, text: string) {
    return this.get(SERVICE[kind], '/v1/search', undefined, { search: text }, S.entityList, (b) =>
      readableRows(b.items).map((i) => ({ kind, slug: i.slug, name: i.name, ...(i.ticker ? { ticker: i.ticker } : {}) })),
    );
  }

  trending(kind: D.EntityKind) {
    return this.get(SERVICE[kind], '/v1/search/trending', undefined, {}, S.entityList, (b) =>
      readableRows(b.items).map((i) => ({ kind, slug: i.slug, name: i.name, ...(i.ticker ? { ticker: i.ticker } : {}) })),
    );
  }

  record(kind: D.EntityKind, slug: string): Promise<Fetched<D.EntityRecord>> {
    if (kind === 'project') {
      return this.get(
        SERVICE.project,
        '/v1/{slug}',
        slug,
        {},
        S.projectRecord,
        (p): D.ProjectRecord => ({
          kind: 'project',
          slug: p.slug,
          name: p.name,
          ...(p.ticker ? { ticker: p.ticker } : {}),
          ...(p.category ? { category: p.category } : {}),
          chains: p.chains,
          ...(p.website ? { website: p.website } : {}),
          ...(p.launchedAt ? { launchedAt: p.launchedAt } : {}),
          ...(p.marketData ? { market: marketOf(p.marketData) } : {}),
        }),
      );
    }
    return this.get(SERVICE.exchange, '/v1/{slug}', slug, {}, S.exchangeRecord, exchangeRecordOf);
  }

  async resolveProject(): Promise<Fetched<D.ProjectResolution | null>> {
    return { data: null, meta: { source: 'rest', fetchedAt: Date.now(), simulated: false } };
  }

  polCurrent(kind: D.EntityKind, slug: string) {
    return this.get(SERVICE[kind], '/v1/{slug}/pol/current', slug, {}, S.polCurrent, (b) => ({
      pol: b.pol,
      rating: b.rating,
      timestamp: readable(b.timestamp) ?? null,
    }));
  }

  polHistory(kind: D.EntityKind, slug: string, from: number, to: number) {
    return this.get(SERVICE[kind], '/v1/{slug}/pol/history', slug, { from, to }, S.points(S.polPoint), (b) => readableRows(b.points));
  }

  polChart(kind: D.EntityKind, slug: string, days?: number) {
    return this.get(SERVICE[kind], '/v1/{slug}/pol/history/chart', slug, { days }, S.points(S.polPoint), (b) => readableRows(b.points));
  }

  byCategory(kind: D.EntityKind, slug: string) {
    return this.get(SERVICE[kind], '/v1/{slug}/pol/by_category', slug, {}, S.byCategory, (b) => ({
      ...timestampOf(b.timestamp),
      categories: readableRows(b.categories).map(categoryOf),
    }));
  }

  byCategoryHistory(kind: D.EntityKind, slug: string, from: number, to: number) {
    return this.get(SERVICE[kind], '/v1/{slug}/pol/by_category/history', slug, { from, to }, S.points(S.categoryPoint), (b) =>
      readableRows(b.points),
    );
  }

  byCategoryChart(kind: D.EntityKind, slug: string, days?: number) {
    return this.get(SERVICE[kind], '/v1/{slug}/pol/by_category/history/chart', slug, { days }, S.points(S.categoryPoint), (b) =>
      readableRows(b.points),
    );
  }

  async categoryScore(kind: D.EntityKind, slug: string, category: string): Promise<Fetched<D.QualityScore>> {
    const all = await this.byCategory(kind, slug);
    const found = all.data.categories.find((c) => c.category === category);
    if (!found)
      throw new UpstreamError('not_available', `${SERVICE[kind]} /v1/{slug}/pol/by_category`, { detail: `no ${category} category` });
    return { data: found.score, meta: all.meta };
  }

  byMetric(kind: D.EntityKind, slug: string) {
    return this.get(SERVICE[kind], '/v1/{slug}/pol/by_metric', slug, {}, S.byMetric, (b) => ({
      ...timestampOf(b.timestamp),
      metrics: readableRows(b.metrics).map((m) => ({
        metric: m.metric,
        ...(m.category ? { category: m.category } : {}),
        label: m.label ?? m.metric,
        ...(m.weight !== null ? { weight: m.weight } : {}),
        score: m.score,
      })),
    }));
  }

  byMetricHistory(kind: D.EntityKind, slug: string, from: number, to: number) {
    return this.get(SERVICE[kind], '/v1/{slug}/pol/by_metric/history', slug, { from, to }, S.points(S.metricPoint), (b) =>
      readableRows(b.points),
    );
  }

  byMetricChart(kind: D.EntityKind, slug: string, days?: number) {
    return this.get(SERVICE[kind], '/v1/{slug}/pol/by_metric/history/chart', slug, { days }, S.points(S.metricPoint), (b) =>
      readableRows(b.points),
    );
  }

  indexPol(kind: D.EntityKind) {
    return this.get(SERVICE[kind], '/v1/pol', undefined, {}, S.indexPol, (b) => ({
      pol: b.pol,
      rating: b.rating,
      entities: b.entities,
      timestamp: b.timestamp,
    }));
  }

  indexPolHistory(from: number, to: number) {
    return this.get('projects_data', '/v1/pol/history', undefined, { from, to }, S.points(S.polPoint), (b) => readableRows(b.points));
  }

  indexPolChart(days?: number) {
    return this.get('projects_data', '/v1/pol/history/chart', undefined, { days }, S.points(S.polPoint), (b) => readableRows(b.points));
  }

  ratings(kind: D.EntityKind, query: D.RatingsQuery = {}) {
    return this.get(
      SERVICE[kind],
      '/v1/ratings',
      undefined,
      {
        page: query.page,
        page_size: query.pageSize,
        sort_by: query.sortBy,
        sort_direction: query.sortDirection,
        ...query.filters,
      },
      S.ratingsPage(kind),
      (b): D.Page<D.RatingEntry> => ({
        items: S.ratingEntries(kind, b.items),
        page: b.page,
        pageSize: b.page_size,
        total: b.total,
        totalPages: b.total_pages,
      }),
    );
  }

  ratingParameters(kind: D.EntityKind) {
    return this.get(SERVICE[kind], '/v1/ratings/parameters', undefined, {}, S.ratingParameters, (b): D.RatingParameters => {
      const sortBy = Array.isArray(b.sort_by) ? { values: b.sort_by, default: undefined } : b.sort_by;
      const dir = b.sort_direction && !Array.isArray(b.sort_direction) ? b.sort_direction.default : undefined;
      return {
        sortBy: sortBy.values,
        ...(sortBy.default ? { sortByDefault: sortBy.default } : {}),
        ...(dir ? { sortDirectionDefault: dir } : {}),
        filters: b.filters.map((f) => ({ name: f.name, type: f.type, ...(f.values ? { values: f.values } : {}) })),
      };
    });
  }

  topRatings() {
    return this.get('exchanges_data', '/v1/top_ratings', undefined, {}, S.topRatings, (b) => S.ratingEntries('exchange', b.items));
  }

  ratingTokens(search?: string) {
    return this.get('exchanges_data', '/v1/ratings/parameters/tokens', undefined, { search }, S.ratingTokens, (b) => readableRows(b.items));
  }

  exchangeTransparency(slug: string) {
    return this.get(
      'exchanges_data',
      '/v1/{slug}/transparency',
      slug,
      {},
      S.exchangeTransparency,
      (b): D.ExchangeTransparency => ({
        ...(b.score ? { score: b.score } : {}),
        proofOfReserves: b.isProofOfReservesPresent,
        auditor: b.auditor,
        lastAuditAt: b.lastAuditAt,
        teamPublic: b.isTeamPublic,
        orderBookPublic: b.isOrderBookPublic,
      }),
    );
  }

  exchangeSecurity(slug: string) {
    return this.get(
      'exchanges_data',
      '/v1/{slug}/security',
      slug,
      {},
      S.exchangeSecurity,
      (b): D.ExchangeSecurity => ({
        ...(b.score ? { score: b.score } : {}),
        bugBounty: b.isBugBountyPresent,
        bugBountyMaxUsd: b.bugBountyMaxUsd,
        penetrationTesting: b.isPenetrationTestingPresent,
        lastPenetrationTestAt: b.lastPenetrationTestAt,
        iso27001: b.isIso27001Present,
        soc2: b.isSoc2Present,
      }),
    );
  }

  exchangeSolvency(slug: string) {
    return this.get(
      'exchanges_data',
      '/v1/{slug}/solvency',
      slug,
      {},
      S.exchangeSolvency,
      (b): D.ExchangeSolvency => ({
        ...(b.score ? { score: b.score } : {}),
        proofOfReserves: b.isProofOfReservesPresent,
        reservesUsd: b.reservesUsd,
        liabilitiesUsd: b.liabilitiesUsd,
        reserveRatio: b.reserveRatio,
      }),
    );
  }

  liabilitiesReservesChart(slug: string, days?: number) {
    return this.get(
      'exchanges_data',
      '/v1/{slug}/solvency/liabilities_reserves/history/chart',
      slug,
      { days },
      S.points(S.reservesPoint),
      (b) => readableRows(b.points),
    );
  }

  listedAssets(slug: string, query: D.ListedAssetsQuery = {}) {
    return this.get(
      'exchanges_data',
      '/v1/{slug}/listed_assets',
      slug,
      {
        page: query.page,
        page_size: query.pageSize,
        search: query.search,
        categories: query.categories,
        sort_by: query.sortBy,
        sort_direction: query.sortDirection,
      },
      S.listedAssetsPage,
      (b): D.Page<D.ListedAsset> => ({
        items: readableRows(b.items),
        page: b.page,
        pageSize: b.page_size,
        total: b.total,
        totalPages: b.total_pages,
      }),
    );
  }

  listedAssetCategories(slug: string) {
    return this.get('exchanges_data', '/v1/{slug}/listed_assets/categories', slug, {}, S.assetCategories, (b) => readableRows(b.items));
  }

  dashboard(slug: string) {
    return this.get(
      'exchanges_data',
      '/v1/dashboard/{slug}',
      slug,
      {},
      S.dashboard,
      (b): D.ExchangeDashboard => ({
        record: exchangeRecordOf(b),
        pol: b.pol,
        rating: b.rating,
        categories: readableRows(b.categories).map(categoryOf),
        reserves: b.reserves ?? null,
        listedAssetsCount: b.listedAssetsCount,
      }),
    );
  }

  lostFunds() {
    return this.get(
      'exchanges_data',
      '/v1/lost_funds',
      undefined,
      {},
      S.lostFunds,
      (b): D.LostFunds => ({
        totalUsd: b.totalUsd,
        incidents: readableRows(b.incidents).map((i) => ({ ...i, slug: i.slug ?? null })),
        byYear: readableRows(b.byYear),
      }),
    );
  }

  transparencyStats() {
    return this.get('exchanges_data', '/v1/transparency_stats', undefined, {}, S.transparencyStats, (b) => b);
  }

  redFlags(slug: string) {
    return this.get(
      'projects_data',
      '/v1/{slug}/reputational',
      slug,
      {},
      S.projectReputational,
      (b): D.RedFlags => ({
        marketMaker: b.mmRedFlags,
        investor: b.investorRedFlags,
      }),
    );
  }

  socialFraud(slug: string) {
    return this.get(
      'projects_data',
      '/v1/{slug}/reputational',
      slug,
      {},
      S.projectReputational,
      (b): D.SocialSignals => ({ metrics: b.social }),
    );
  }

  registration(slug: string) {
    return this.get(
      'projects_data',
      '/v1/{slug}/regulatory',
      slug,
      {},
      S.projectRegulatory,
      (b): D.Registration => ({
        publicRegistration: b.isPublicRegistrationPresent,
        jurisdictionTier: b.jurisdictionQuality,
        ...(b.jurisdiction ? { jurisdiction: b.jurisdiction } : {}),
      }),
    );
  }

  certifications(slug: string) {
    return this.get(
      'projects_data',
      '/v1/{slug}/security',
      slug,
      {},
      S.projectSecurity,
      (b): D.Certifications => ({
        iso27001: b.certifications.isIso27001Present,
        ccss: b.certifications.isCcssPresent,
        ccssLevel: b.certifications.ccssLevel,
        soc2: b.certifications.isSoc2Present,
      }),
    );
  }

  team(slug: string) {
    return this.get(
      'projects_data',
      '/v1/{slug}/operational',
      slug,
      {},
      S.projectOperational,
      (b): D.TeamRecord => ({
        educationRelevant: b.team.isEducationRelevant,
        workExperienceRelevant: b.team.isWorkExperienceRelevant,
        businessExperienceRelevant: b.team.isBusinessExperienceRelevant,
      }),
    );
  }

  githubActivity(slug: string) {
    return this.get(
      'projects_data',
      '/v1/{slug}/operational',
      slug,
      {},
      S.projectOperational,
      (b): D.GithubActivity => ({
        commitsCount7d: b.github.commitsCount7d,
        heatmap: b.github.heatmap,
      }),
    );
  }

  age(slug: string) {
    return this.get(
      'projects_data',
      '/v1/{slug}/operational',
      slug,
      {},
      S.projectOperational,
      (b): D.ProjectAge => ({
        projectLaunchedAt: b.projectLaunchedAt,
        protocolLaunchedAt: b.protocolLaunchedAt,
      }),
    );
  }

  marketData(slug: string) {
    return this.get('projects_data', '/v1/{slug}', slug, {}, S.projectRecord, (b) => marketOf(b.marketData ?? {}));
  }

  voiceProsCons(slug: string) {
    return this.get(
      'projects_data',
      '/v1/{slug}/proof_of_voice',
      slug,
      {},
      S.proofOfVoice,
      (b): D.VoiceProsCons => ({ pros: b.pros, cons: b.cons }),
    );
  }

  voiceReviews(slug: string) {
    return this.get('projects_data', '/v1/{slug}/proof_of_voice', slug, {}, S.proofOfVoice, (b) => b.reviews);
  }

  voiceChart(slug: string, days?: number) {
    return this.get(
      'projects_data',
      '/v1/{slug}/proof_of_voice/history/chart',
      slug,
      { days },
      S.points(S.valuePoint('score', required('score'))),
      (b) => readableRows(b.points),
    );
  }

  inflationChart(slug: string, days?: number) {
    return this.get(
      'projects_data',
      '/v1/{slug}/financial/inflation/history/chart',
      slug,
      { days },
      S.points(S.valuePoint('inflation', required('change'))),
      (b) => readableRows(b.points),
    );
  }

  projectSection(slug: string, section: D.ProjectSection) {
    return this.get(
      'projects_data',
      `/v1/{slug}/${section}`,
      slug,
      {},
      S.projectSection,
      (b): D.ProjectSectionFacts => ({
        score: b.score,
        voiceScore: b.voiceScore,
        audits: readableRows(b.audits),
        inflationRate: b.inflationRate,
      }),
    );
  }

  /** Both services must be healthy; each one's checks are reported. */
  async health(): Promise<Fetched<D.HealthStatus>> {
    const results = await Promise.all(
      (['projects_data', 'exchanges_data'] as const).map(async (service) => {
        try {
          // A 503 from health is an answer ("checks failing"), not a failure worth retrying.
          return await this.get(service, '/v1/health', undefined, {}, S.health, (b) => ({ service, healthy: statusFromHealth(b.status) }), {
            retry: false,
          });
        } catch (err) {
          if (err instanceof UpstreamError && err.status === 503) {
            return { data: { service, healthy: false }, meta: { source: 'rest' as const, fetchedAt: Date.now(), simulated: false } };
          }
          throw err;
        }
      }),
    );
    return {
      data: {
        healthy: results.every((r) => r.data.healthy),
        checks: results.map((r) => ({ name: r.data.service, ok: r.data.healthy })),
      },
      meta: { ...results[0]!.meta, simulated: results.some((r) => r.meta.simulated) },
    };
  }
}

function marketOf(m: Partial<z.output<typeof S.marketData>>): D.MarketData {
  return {
    price: m.price ?? null,
    marketCap: m.marketCap ?? null,
    ...(m.volume24h != null ? { volume24h: m.volume24h } : {}),
    ...(m.priceChange24h != null ? { priceChange24h: m.priceChange24h } : {}),
  };
}

function categoryOf(c: { category: string; score: D.QualityScore; weight: D.Checked<number> | null }): D.CategoryScore {
  return { category: c.category, score: c.score, ...(c.weight !== null ? { weight: c.weight } : {}) };
}

/** A breakdown's time when it could be read; an unreadable one is logged, and the breakdown goes without. */
function timestampOf(t: D.Checked<number> | null): { timestamp?: number } {
  const v = readable(t);
  return v === undefined || v === null ? {} : { timestamp: v };
}

function exchangeRecordOf(e: z.output<typeof S.exchangeRecord>): D.ExchangeRecord {
  return {
    kind: 'exchange',
    slug: e.slug,
    name: e.name,
    ...(e.type ? { type: e.type } : {}),
    ...(e.country ? { country: e.country } : {}),
    ...(e.established !== null ? { established: e.established } : {}),
    ...(e.website ? { website: e.website } : {}),
    ...(e.rank !== null ? { rank: e.rank } : {}),
    ...(e.tradingVolume24h !== null ? { tradingVolume24h: e.tradingVolume24h } : {}),
    ...(e.tradingVolumeChange !== null ? { tradingVolumeChange: e.tradingVolumeChange } : {}),
    markers: {
      ...(e.isProofOfReservesPresent !== null ? { proofOfReserves: e.isProofOfReservesPresent } : {}),
      ...(e.isBugBountyPresent !== null ? { bugBounty: e.isBugBountyPresent } : {}),
      ...(e.isPenetrationTestingPresent !== null ? { penetrationTesting: e.isPenetrationTestingPresent } : {}),
    },
  };
}
