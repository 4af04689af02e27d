import type { SimEntity, SimExchange, SimProject } from '../data/model.js';
import type { EntityKind, SimStore } from '../data/store.js';
import * as entity from '../views/entity.js';
import * as exchanges from '../views/exchanges.js';
import * as listing from '../views/listing.js';
import * as projects from '../views/projects.js';
import { notFound } from './errors.js';
import type { Query } from './params.js';

export interface RouteContext {
  store: SimStore;
  params: Record<string, string | undefined>;
  query: Query;
  healthFailing: boolean;
}

export interface Route {
  service: Service;
  /** Template with `{slug}` placeholders, as written in the REST document. */
  path: string;
  handler: (ctx: RouteContext) => unknown;
  /** Health answers 503 while failing; the handler's body still describes the checks. */
  health?: boolean;
}

export type Service = 'exchanges_data' | 'projects_data';

const KIND: Record<Service, EntityKind> = { exchanges_data: 'exchange', projects_data: 'project' };

function slugOf(ctx: RouteContext): string {
  return ctx.params.slug ?? '';
}

function findEntity(ctx: RouteContext, kind: EntityKind): SimEntity {
  const slug = slugOf(ctx);
  const e = ctx.store.entity(kind, slug);
  if (!e) throw notFound(`No ${kind} with slug '${slug}'`);
  return e;
}

const project = (ctx: RouteContext) => findEntity(ctx, 'project') as SimProject;
const exchange = (ctx: RouteContext) => findEntity(ctx, 'exchange') as SimExchange;

function commonRoutes(service: Service): Route[] {
  const kind = KIND[service];
  const e = (ctx: RouteContext) => findEntity(ctx, kind);
  const r = (path: string, handler: Route['handler'], extra: Partial<Route> = {}): Route => ({ service, path, handler, ...extra });
  return [
    r('/v1/health', (ctx) => entity.health(service, ctx.healthFailing), { health: true }),
    r('/v1/pol', (ctx) => entity.indexPol(ctx.store, kind)),
    r('/v1/list', (ctx) => listing.list(ctx.store, kind)),
    r('/v1/search', (ctx) => listing.search(ctx.store, kind, ctx.query.string('search', true)!)),
    r('/v1/search/trending', (ctx) => listing.trending(ctx.store, kind)),
    r('/v1/ratings/parameters', (ctx) =>
      kind === 'exchange' ? listing.exchangeRatingParameters() : listing.projectRatingParameters(ctx.store),
    ),
    r('/v1/{slug}', (ctx) => (kind === 'exchange' ? exchanges.record(ctx.store, exchange(ctx)) : projects.record(ctx.store, project(ctx)))),
    r('/v1/{slug}/pol/current', (ctx) => entity.polCurrent(ctx.store, e(ctx))),
    r('/v1/{slug}/pol/history', (ctx) => {
      const { from, to } = ctx.query.range();
      return entity.polHistory(ctx.store, e(ctx), from, to);
    }),
    r('/v1/{slug}/pol/history/chart', (ctx) => entity.polChart(ctx.store, e(ctx), ctx.query.days())),
    r('/v1/{slug}/pol/by_category', (ctx) => entity.byCategory(ctx.store, e(ctx))),
    r('/v1/{slug}/pol/by_category/history', (ctx) => {
      const { from, to } = ctx.query.range();
      return entity.byCategoryHistory(ctx.store, e(ctx), from, to);
    }),
    r('/v1/{slug}/pol/by_category/history/chart', (ctx) => entity.byCategoryChart(ctx.store, e(ctx), ctx.query.days())),
    r('/v1/{slug}/pol/by_metric', (ctx) => entity.byMetric(ctx.store, e(ctx))),
    r('/v1/{slug}/pol/by_metric/history', (ctx) => {
      const { from, to } = ctx.query.range();
      return entity.byMetricHistory(ctx.store, e(ctx), from, to);
    }),
    r('/v1/{slug}/pol/by_metric/history/chart', (ctx) => entity.byMetricChart(ctx.store, e(ctx), ctx.query.days())),
  ];
}

function exchangeRoutes(): Route[] {
  const service = 'exchanges_data' as const;
  const r = (path: string, handler: Route['handler']): Route => ({ service, path, handler });
  return [
    r('/v1/ratings', (ctx) => {
      const { page, pageSize } = ctx.query.page();
      return listing.exchangeRatings(ctx.store, {
        page,
        pageSize,
        sortBy: ctx.query.enumOf('sort_by', listing.EXCHANGE_SORTS, 'rank'),
        direction: ctx.query.enumOf('sort_direction', ['ASC', 'DESC'] as const, 'ASC'),
        bugBounty: ctx.query.bool('is_bug_bounty_present'),
        proofOfReserves: ctx.query.bool('is_proof_of_reserves_present'),
        penetrationTesting: ctx.query.bool('is_penetration_testing_present'),
        listedTokens: ctx.query.intArray('listed_tokens'),
      });
    }),
    r('/v1/ratings/parameters/tokens', (ctx) => listing.ratingTokens(ctx.store, ctx.query.string('search'))),
    r('/v1/top_ratings', (ctx) => listing.topRatings(ctx.store)),
    r('/v1/transparency_stats', (ctx) => exchanges.transparencyStats(ctx.store)),
    r('/v1/lost_funds', (ctx) => exchanges.lostFunds(ctx.store)),
    r('/v1/dashboard/{slug}', (ctx) => exchanges.dashboard(ctx.store, exchange(ctx))),
    r('/v1/{slug}/listed_assets', (ctx) => {
      const { page, pageSize } = ctx.query.page();
      return exchanges.listedAssets(ctx.store, exchange(ctx), {
        page,
        pageSize,
        search: ctx.query.string('search'),
        categories: ctx.query.array('categories'),
        sortBy: ctx.query.enumOf('sort_by', ['name', 'marketCap', 'polScore'] as const, 'marketCap'),
        direction: ctx.query.enumOf('sort_direction', ['ASC', 'DESC'] as const, 'DESC'),
      });
    }),
    r('/v1/{slug}/listed_assets/categories', (ctx) => exchanges.listedAssetCategories(ctx.store, exchange(ctx))),
    r('/v1/{slug}/transparency', (ctx) => exchanges.transparency(ctx.store, exchange(ctx))),
    r('/v1/{slug}/security', (ctx) => exchanges.security(ctx.store, exchange(ctx))),
    r('/v1/{slug}/solvency', (ctx) => exchanges.solvency(ctx.store, exchange(ctx))),
    r('/v1/{slug}/solvency/liabilities_reserves/history/chart', (ctx) =>
      exchanges.liabilitiesReservesChart(ctx.store, exchange(ctx), ctx.query.days()),
    ),
  ];
}

function projectRoutes(): Route[] {
  const service = 'projects_data' as const;
  const r = (path: string, handler: Route['handler']): Route => ({ service, path, handler });
  return [
    r('/v1/ratings', (ctx) => {
      const { page, pageSize } = ctx.query.page();
      return listing.projectRatings(ctx.store, {
        page,
        pageSize,
        sortBy: ctx.query.enumOf('sort_by', listing.PROJECT_SORTS, 'rank'),
        direction: ctx.query.enumOf('sort_direction', ['ASC', 'DESC'] as const, 'DESC'),
        categories: ctx.query.array('categories'),
        marketCap: ctx.query.array('market_cap'),
        chains: ctx.query.array('chains'),
        compliance: ctx.query.array('compliance'),
      });
    }),
    r('/v1/pol/history', (ctx) => {
      const { from, to } = ctx.query.range();
      return entity.indexPolHistory(ctx.store, 'project', from, to);
    }),
    r('/v1/pol/history/chart', (ctx) => entity.indexPolChart(ctx.store, 'project', ctx.query.days())),
    r('/v1/{slug}/security', (ctx) => projects.security(ctx.store, project(ctx))),
    r('/v1/{slug}/financial', (ctx) => projects.financial(ctx.store, project(ctx))),
    r('/v1/{slug}/reputational', (ctx) => projects.reputational(ctx.store, project(ctx))),
    r('/v1/{slug}/regulatory', (ctx) => projects.regulatory(ctx.store, project(ctx))),
    r('/v1/{slug}/proof_of_voice', (ctx) => projects.proofOfVoice(ctx.store, project(ctx))),
    r('/v1/{slug}/proof_of_voice/history/chart', (ctx) => projects.proofOfVoiceChart(ctx.store, project(ctx), ctx.query.days())),
    r('/v1/{slug}/operational', (ctx) => projects.operational(ctx.store, project(ctx))),
    r('/v1/{slug}/financial/inflation/history/chart', (ctx) => projects.inflationChart(ctx.store, project(ctx), ctx.query.days())),
  ];
}

export const ROUTES: readonly Route[] = [
  ...commonRoutes('exchanges_data'),
  ...exchangeRoutes(),
  ...commonRoutes('projects_data'),
  ...projectRoutes(),
];

/** The full template of a route, e.g. `/projects_data/v1/{slug}/pol/current`. */
export const fullPath = (route: Route) => `/${route.service}${route.path}`;
