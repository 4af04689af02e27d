import type { z } from 'zod';
import type * as D from '../domain.js';
import { EXCHANGE_CATEGORIES, PROJECT_CATEGORIES } from '../domain.js';
import { badResponse, UpstreamError } from '../errors.js';
import { assertSlug } from '../rest/paths.js';
import { withRetries } from '../retry.js';
import type { DataMethod, DataSource, Fetched } from '../source.js';
import { assertAbout, readAnswer, type OnUnreadable } from '../read-answer.js';
import { readableRows } from '../rules.js';
import { classifyMcpError, McpConnection, type McpConnectionOptions } from './connection.js';
import { TOOL_BACKED, toolDrift } from './contract.js';
import * as S from './schemas.js';

export interface McpSourceOptions extends McpConnectionOptions {
  timeoutMs?: number;
  maxAttempts?: number;
  backoffMs?: number;
  /** Called for every answer that held values outside their domain, for the log and metrics. */
  onUnreadable?: OnUnreadable;
  /** Called once per tool call with its route (`mcp <tool>`), for the contract check. */
  onCall?: (route: string) => void;
}

interface ToolResult {
  structuredContent?: unknown;
  content?: unknown;
  isError?: boolean;
}

/** The read-only MCP tool server as a DataSource; with REST configured too, `failover` fills the gaps. */
export class McpSource implements DataSource {
  readonly name = 'mcp' as const;
  private readonly connection: McpConnection;
  private readonly onUnreadable: OnUnreadable | undefined;
  private readonly onCall: ((route: string) => void) | undefined;
  private readonly o: Required<Pick<McpSourceOptions, 'timeoutMs' | 'maxAttempts' | 'backoffMs'>>;

  constructor(options: McpSourceOptions) {
    this.o = { timeoutMs: options.timeoutMs ?? 5_000, maxAttempts: options.maxAttempts ?? 3, backoffMs: options.backoffMs ?? 100 };
    this.connection = new McpConnection({ connectTimeoutMs: this.o.timeoutMs, ...options });
    this.onUnreadable = options.onUnreadable;
    this.onCall = options.onCall;
  }

  supports(method: DataMethod, kind?: D.EntityKind): boolean {
    if (method === 'list' || method === 'record') return kind !== 'exchange';
    return TOOL_BACKED.has(method);
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  /** Calls one tool, reconnecting and retrying after transport failures, and maps its structured content. */
  private async tool<T extends z.ZodType, R>(
    name: string,
    args: Record<string, unknown>,
    schema: T,
    map: (parsed: z.output<T>) => R,
  ): Promise<Fetched<R>> {
    const route = `mcp ${name}`;
    if ('slug' in args) assertSlug(String(args.slug), route);
    const result = await this.call(name, args, this.o.maxAttempts);
    if (result.isError) throw toolError(route, textOf(result));
    if (!result.structuredContent || typeof result.structuredContent !== 'object') throw badResponse(route, 'no structuredContent');
    // The tool may resolve an alias (requestedSlug and resolvedSlug differ); what was asked must match.
    if ('slug' in args) assertAbout(route, result.structuredContent, String(args.slug), ['requestedSlug']);
    const { value, unreadable } = readAnswer(route, schema, result.structuredContent, this.onUnreadable);
    const simulated = (result.structuredContent as { simulated?: unknown }).simulated === true;
    return { data: map(value), meta: { source: 'mcp', fetchedAt: Date.now(), simulated, ...(unreadable ? { unreadable } : {}) } };
  }

  /** One tool call within the deadline, reconnecting between attempts. */
  private call(name: string, args: Record<string, unknown>, maxAttempts: number): Promise<ToolResult> {
    const route = `mcp ${name}`;
    this.onCall?.(route);
    return withRetries(
      async (signal) => {
        try {
          const client = await untilAborted(this.connection.get(), signal);
          return (await client.callTool({ name, arguments: args }, undefined, { signal, timeout: this.o.timeoutMs })) as ToolResult;
        } catch (err) {
          throw classifyMcpError(err, route);
        }
      },
      { timeoutMs: this.o.timeoutMs, maxAttempts, backoffMs: this.o.backoffMs, route, onRetry: () => this.connection.reset() },
    );
  }

  /**
   * What no tool offers (search, exchange lists, overall PoL, histories, ratings, ...) is answered
   * by the REST service when one is configured (see `failover`); here it is a clear "not available".
   */
  private viaRest<K extends keyof DataSource>(_method: K, what: string): DataSource[K] {
    return (() =>
      Promise.reject(
        new UpstreamError('not_available', `mcp (no tool for ${what})`, {
          message: `${capitalize(what)} is not available through the tool server, and no REST base URL is configured.`,
        }),
      )) as unknown as DataSource[K];
  }

  // Entities, lists, search

  list(kind: D.EntityKind): Promise<Fetched<D.EntityRef[]>> {
    if (kind === 'exchange') return this.viaRest('list', 'the exchange list')(kind);
    return this.tool('get_projects_list', {}, S.projectsList, (b) =>
      readableRows(b.projects).map((p) => ({ kind: 'project' as const, slug: p.slug, name: p.name })),
    );
  }

  search(kind: D.EntityKind, text: string) {
    return this.viaRest('search', 'search')(kind, text);
  }

  trending(kind: D.EntityKind) {
    return this.viaRest('trending', 'trending')(kind);
  }

  async record(kind: D.EntityKind, slug: string): Promise<Fetched<D.EntityRecord>> {
    if (kind === 'exchange') return this.viaRest('record', 'the exchange record')(kind, slug);
    // Without REST a project record is what the tools give: its list entry and market data.
    const [list, market] = await Promise.all([this.list('project'), this.marketData(slug)]);
    const entry = list.data.find((p) => p.slug === slug);
    if (!entry) throw new UpstreamError('not_found', 'mcp get_projects_list', { detail: 'slug not in the projects list' });
    return { data: { kind: 'project', slug, name: entry.name, chains: [], market: market.data }, meta: market.meta };
  }

  resolveProject(query: string): Promise<Fetched<D.ProjectResolution | null>> {
    return this.tool('resolve_project_slug', { query }, S.resolution, (b): D.ProjectResolution => {
      const matches = b.matches.map((m) => ({
        kind: 'project' as const,
        slug: m.slug,
        name: m.name,
        ...(m.ticker ? { ticker: m.ticker } : {}),
      }));
      const resolved =
        b.status === 'resolved' && b.resolvedSlug
          ? (matches.find((m) => m.slug === b.resolvedSlug) ?? {
              kind: 'project' as const,
              slug: b.resolvedSlug,
              name: b.resolvedName ?? b.resolvedSlug,
            })
          : undefined;
      // "resolved" without a slug is not a resolution we can act on: treat it as ambiguous.
      const status = b.status === 'resolved' && !resolved ? 'ambiguous' : b.status;
      return { status, query, matches, ...(resolved ? { resolved } : {}) };
    });
  }

  // PoL and breakdowns: only the category scores have tools.

  polCurrent(kind: D.EntityKind, slug: string) {
    return this.viaRest('polCurrent', 'overall PoL')(kind, slug);
  }

  polHistory(kind: D.EntityKind, slug: string, from: number, to: number) {
    return this.viaRest('polHistory', 'PoL history')(kind, slug, from, to);
  }

  polChart(kind: D.EntityKind, slug: string, days?: number) {
    return this.viaRest('polChart', 'PoL history')(kind, slug, days);
  }

  async byCategory(kind: D.EntityKind, slug: string): Promise<Fetched<D.CategoryBreakdown>> {
    const categories = kind === 'project' ? PROJECT_CATEGORIES : EXCHANGE_CATEGORIES;
    const scores = await Promise.all(categories.map((c) => this.categoryScore(kind, slug, c)));
    return {
      data: { categories: scores.map((s, i) => ({ category: categories[i]!, score: s.data })) },
      meta: { ...scores[0]!.meta, simulated: scores.some((s) => s.meta.simulated) },
    };
  }

  byCategoryHistory(kind: D.EntityKind, slug: string, from: number, to: number) {
    return this.viaRest('byCategoryHistory', 'category history by date range')(kind, slug, from, to);
  }

  byCategoryChart(kind: D.EntityKind, slug: string, days?: number) {
    const tool = kind === 'project' ? 'get_project_categories_scores_dynamic' : 'get_exchange_categories_scores_dynamic';
    return this.tool(tool, { slug: slug, ...(days !== undefined ? { days } : {}) }, S.dynamicScores, (b) => readableRows(b.points));
  }

  categoryScore(kind: D.EntityKind, slug: string, category: string): Promise<Fetched<D.QualityScore>> {
    const allowed: readonly string[] = kind === 'project' ? PROJECT_CATEGORIES : EXCHANGE_CATEGORIES;
    if (!allowed.includes(category)) {
      return Promise.reject(new UpstreamError('not_available', `mcp ${kind} ${category} score`, { detail: 'no such category tool' }));
    }
    const tool = `get_${kind}_${category}_score`;
    return this.tool(tool, { slug: slug }, S.scoreEnvelope, (b) => b.score);
  }

  byMetric(kind: D.EntityKind, slug: string) {
    return this.viaRest('byMetric', 'the metric breakdown')(kind, slug);
  }

  byMetricHistory(kind: D.EntityKind, slug: string, from: number, to: number) {
    return this.viaRest('byMetricHistory', 'metric history')(kind, slug, from, to);
  }

  byMetricChart(kind: D.EntityKind, slug: string, days?: number) {
    return this.viaRest('byMetricChart', 'metric history')(kind, slug, days);
  }

  indexPol(kind: D.EntityKind) {
    return this.viaRest('indexPol', 'index-level PoL')(kind);
  }

  indexPolHistory(from: number, to: number) {
    return this.viaRest('indexPolHistory', 'index-level PoL history')(from, to);
  }

  indexPolChart(days?: number) {
    return this.viaRest('indexPolChart', 'index-level PoL history')(days);
  }

  ratings(kind: D.EntityKind, query?: D.RatingsQuery) {
    return this.viaRest('ratings', 'ratings')(kind, query);
  }

  ratingParameters(kind: D.EntityKind) {
    return this.viaRest('ratingParameters', 'ratings parameters')(kind);
  }

  topRatings() {
    return this.viaRest('topRatings', 'top ratings')();
  }

  ratingTokens(search?: string) {
    return this.viaRest('ratingTokens', 'the ratings token list')(search);
  }

  exchangeTransparency(slug: string) {
    return this.viaRest('exchangeTransparency', 'the transparency section')(slug);
  }

  exchangeSecurity(slug: string) {
    return this.viaRest('exchangeSecurity', 'the security section')(slug);
  }

  exchangeSolvency(slug: string) {
    return this.viaRest('exchangeSolvency', 'the solvency section')(slug);
  }

  liabilitiesReservesChart(slug: string, days?: number) {
    return this.viaRest('liabilitiesReservesChart', 'the liabilities and reserves history')(slug, days);
  }

  listedAssets(slug: string, query?: D.ListedAssetsQuery) {
    return this.viaRest('listedAssets', 'listed assets')(slug, query);
  }

  listedAssetCategories(slug: string) {
    return this.viaRest('listedAssetCategories', 'listed-asset categories')(slug);
  }

  dashboard(slug: string) {
    return this.viaRest('dashboard', 'the exchange dashboard')(slug);
  }

  lostFunds() {
    return this.viaRest('lostFunds', 'lost-funds statistics')();
  }

  transparencyStats() {
    return this.viaRest('transparencyStats', 'transparency statistics')();
  }

  // Project sections: one tool each.

  redFlags(slug: string) {
    const tool = 'get_project_red_flags';
    return this.tool(tool, { slug: slug }, S.redFlags, (b): D.RedFlags => ({ marketMaker: b.mmRedFlags, investor: b.investorRedFlags }));
  }

  socialFraud(slug: string) {
    const tool = 'get_project_social_fraud';
    return this.tool(tool, { slug: slug }, S.socialFraud, (b): D.SocialSignals => ({ metrics: b.social }));
  }

  registration(slug: string) {
    const tool = 'get_project_public_registration';
    return this.tool(
      tool,
      { slug: slug },
      S.registration,
      (b): D.Registration => ({
        publicRegistration: b.isPublicRegistrationPresent,
        jurisdictionTier: b.jurisdictionQuality,
      }),
    );
  }

  certifications(slug: string) {
    const tool = 'get_project_certifications';
    return this.tool(
      tool,
      { slug: slug },
      S.certifications,
      (b): D.Certifications => ({
        iso27001: b.isIso27001Present,
        ccss: b.isCcssPresent,
        ccssLevel: b.ccssLevel,
        soc2: b.isSoc2Present,
      }),
    );
  }

  team(slug: string) {
    const tool = 'get_project_team_track_record';
    return this.tool(
      tool,
      { slug: slug },
      S.team,
      (b): D.TeamRecord => ({
        educationRelevant: b.isEducationRelevant,
        workExperienceRelevant: b.isWorkExperienceRelevant,
        businessExperienceRelevant: b.isBusinessExperienceRelevant,
      }),
    );
  }

  githubActivity(slug: string) {
    const tool = 'get_project_github_activity';
    return this.tool(
      tool,
      { slug: slug },
      S.github,
      (b): D.GithubActivity => ({
        commitsCount7d: b.commitsCount7d,
        heatmap: b.heatmap,
      }),
    );
  }

  age(slug: string) {
    const tool = 'get_project_age';
    return this.tool(tool, { slug: slug }, S.age, (b): D.ProjectAge => b);
  }

  marketData(slug: string) {
    const tool = 'get_project_market_data';
    return this.tool(
      tool,
      { slug: slug },
      S.marketData,
      (b): D.MarketData => ({
        price: b.price,
        marketCap: b.marketCap,
        ...(b.volume24h !== null ? { volume24h: b.volume24h } : {}),
        ...(b.priceChange24h !== null ? { priceChange24h: b.priceChange24h } : {}),
      }),
    );
  }

  voiceProsCons(slug: string) {
    const tool = 'get_project_proof_of_voice_pros_and_cons';
    return this.tool(tool, { slug: slug }, S.prosCons, (b): D.VoiceProsCons => ({ pros: b.pros, cons: b.cons }));
  }

  voiceReviews(slug: string) {
    const tool = 'get_project_proof_of_voice_expert_reviews';
    return this.tool(tool, { slug: slug }, S.reviews, (b) => b.reviews);
  }

  voiceChart(slug: string, days?: number) {
    return this.viaRest('voiceChart', 'the Proof of Voice history')(slug, days);
  }

  projectSection(slug: string, section: D.ProjectSection) {
    return this.viaRest('projectSection', `the ${section.replace(/_/g, ' ')} section`)(slug, section);
  }

  inflationChart(slug: string, days?: number) {
    return this.viaRest('inflationChart', 'the inflation history')(slug, days);
  }

  /** How the server's tool list differs from the tools and arguments polbot uses; empty when it agrees. */
  async toolDrift(): Promise<string[]> {
    const route = 'mcp tools/list';
    const listed = await withRetries(
      async (signal) => {
        try {
          const client = await untilAborted(this.connection.get(), signal);
          return await client.listTools(undefined, { signal, timeout: this.o.timeoutMs });
        } catch (err) {
          throw classifyMcpError(err, route);
        }
      },
      { timeoutMs: this.o.timeoutMs, maxAttempts: 1, backoffMs: this.o.backoffMs, route },
    );
    return toolDrift(listed.tools as Parameters<typeof toolDrift>[0]);
  }

  /**
   * `check_health` answers with a text confirmation only: an error result, or one that confirms
   * nothing, means the checks fail rather than that they passed.
   */
  async health(): Promise<Fetched<D.HealthStatus>> {
    // One attempt: a health check that retries hides the failures it is there to show.
    const result = await this.call('check_health', {}, 1);
    const text = textOf(result);
    const healthy = !result.isError && text !== '';
    const simulated = /simulated/i.test(text);
    return {
      data: { healthy, checks: [{ name: 'mcp', ok: healthy }] },
      meta: { source: 'mcp', fetchedAt: Date.now(), simulated },
    };
  }
}

function textOf(result: ToolResult): string {
  if (!Array.isArray(result.content)) return '';
  return result.content
    .map((c) =>
      c && typeof c === 'object' && (c as { type?: unknown }).type === 'text' ? String((c as { text?: unknown }).text ?? '') : '',
    )
    .join(' ')
    .trim();
}

/** The tool document does not define error results; unknown slugs are recognised by their wording. */
function toolError(route: string, text: string): UpstreamError {
  if (/\b(no (project|exchange)|not found|unknown (slug|project|exchange))\b/i.test(text)) {
    return new UpstreamError('not_found', route, { detail: text.slice(0, 200) });
  }
  return new UpstreamError('unavailable', route, { detail: text.slice(0, 200) });
}

/** Connecting is part of the call's deadline: a slow handshake must not outlive it. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
