import { diagnose } from './diagnose.js';
import { type EntityKind, EXCHANGE_CATEGORIES, PROJECT_CATEGORIES, PROJECT_SECTIONS, type SourceName } from './domain.js';
import { UpstreamError } from './errors.js';
import { previewValue, type UnreadableField } from './rules.js';
import type { DataMethod, DataSource } from './source.js';

/**
 * The contract check behind `polbot doctor`: every operation polbot can ask of a source, called
 * once, each answer read against the schemas and the domain rules. It reports what the upstream
 * does differently from what polbot expects, one row per operation, and fails nothing itself.
 */

export interface ContractRow {
  source: SourceName;
  /** The operation as polbot names it (`polCurrent project aave`). */
  operation: string;
  /** Routes or tools the operation used (`projects_data /v1/{slug}/pol/current`, `mcp get_project_age`). */
  routes: string[];
  ok: boolean;
  /** `ok`, or the first difference found. */
  result: string;
}

/** What the source's hooks saw during one operation; the check resets it before each. */
export interface Tap {
  routes: string[];
  unreadable: { route: string; fields: UnreadableField[]; rows: number }[];
}

export const newTap = (): Tap => ({ routes: [], unreadable: [] });

interface Checkable extends DataSource {
  toolDrift?: () => Promise<string[]>;
}

export interface Samples {
  project: string;
  exchange: string;
  /** A name to resolve, as a person would type it. */
  projectName: string;
}

const DAY_MS = 86_400_000;

interface Operation {
  method: DataMethod;
  kind?: EntityKind;
  label: string;
  call: (s: DataSource) => Promise<unknown>;
}

/** Every DataSource operation with sample arguments: the whole surface polbot can call. */
function operations(samples: Samples, now: number): Operation[] {
  const from = now - 30 * DAY_MS;
  const ops: Operation[] = [{ method: 'health', label: 'health', call: (s) => s.health() }];
  for (const kind of ['project', 'exchange'] as const) {
    const slug = kind === 'project' ? samples.project : samples.exchange;
    const op = (method: DataMethod, call: (s: DataSource) => Promise<unknown>, extra = '') =>
      ops.push({
        method,
        kind,
        label: `${method} ${kind}${method === 'list' || method === 'trending' || method === 'indexPol' || method === 'ratings' || method === 'ratingParameters' ? '' : ` ${slug}`}${extra}`,
        call,
      });
    op('list', (s) => s.list(kind));
    op('trending', (s) => s.trending(kind));
    ops.push({ method: 'search', kind, label: `search ${kind} "${slug.slice(0, 3)}"`, call: (s) => s.search(kind, slug.slice(0, 3)) });
    op('record', (s) => s.record(kind, slug));
    op('polCurrent', (s) => s.polCurrent(kind, slug));
    op('polHistory', (s) => s.polHistory(kind, slug, from, now), ' (30 days)');
    op('polChart', (s) => s.polChart(kind, slug, 30), ' (30 days)');
    op('byCategory', (s) => s.byCategory(kind, slug));
    op('byCategoryHistory', (s) => s.byCategoryHistory(kind, slug, from, now), ' (30 days)');
    op('byCategoryChart', (s) => s.byCategoryChart(kind, slug, 30), ' (30 days)');
    for (const category of kind === 'project' ? PROJECT_CATEGORIES : EXCHANGE_CATEGORIES) {
      op('categoryScore', (s) => s.categoryScore(kind, slug, category), ` ${category}`);
    }
    op('byMetric', (s) => s.byMetric(kind, slug));
    op('byMetricHistory', (s) => s.byMetricHistory(kind, slug, from, now), ' (30 days)');
    op('byMetricChart', (s) => s.byMetricChart(kind, slug, 30), ' (30 days)');
    op('indexPol', (s) => s.indexPol(kind));
    op('ratings', (s) => s.ratings(kind));
    op('ratingParameters', (s) => s.ratingParameters(kind));
  }
  const plain = (method: DataMethod, call: (s: DataSource) => Promise<unknown>, label: string = method) =>
    ops.push({ method, label, call });
  const { project: p, exchange: e } = samples;
  plain('resolveProject', (s) => s.resolveProject(samples.projectName), `resolveProject "${samples.projectName}"`);
  plain('indexPolHistory', (s) => s.indexPolHistory(from, now), 'indexPolHistory (30 days)');
  plain('indexPolChart', (s) => s.indexPolChart(30), 'indexPolChart (30 days)');
  plain('topRatings', (s) => s.topRatings());
  plain('ratingTokens', (s) => s.ratingTokens());
  plain('exchangeTransparency', (s) => s.exchangeTransparency(e), `exchangeTransparency ${e}`);
  plain('exchangeSecurity', (s) => s.exchangeSecurity(e), `exchangeSecurity ${e}`);
  plain('exchangeSolvency', (s) => s.exchangeSolvency(e), `exchangeSolvency ${e}`);
  plain('liabilitiesReservesChart', (s) => s.liabilitiesReservesChart(e, 30), `liabilitiesReservesChart ${e} (30 days)`);
  plain('listedAssets', (s) => s.listedAssets(e), `listedAssets ${e}`);
  plain('listedAssetCategories', (s) => s.listedAssetCategories(e), `listedAssetCategories ${e}`);
  plain('dashboard', (s) => s.dashboard(e), `dashboard ${e}`);
  plain('lostFunds', (s) => s.lostFunds());
  plain('transparencyStats', (s) => s.transparencyStats());
  for (const method of [
    'redFlags',
    'socialFraud',
    'registration',
    'certifications',
    'team',
    'githubActivity',
    'age',
    'marketData',
    'voiceProsCons',
    'voiceReviews',
  ] as const) {
    plain(method, (s) => s[method](p), `${method} ${p}`);
  }
  for (const section of PROJECT_SECTIONS) plain('projectSection', (s) => s.projectSection(p, section), `projectSection ${p} ${section}`);
  plain('voiceChart', (s) => s.voiceChart(p, 30), `voiceChart ${p} (30 days)`);
  plain('inflationChart', (s) => s.inflationChart(p, 30), `inflationChart ${p} (30 days)`);
  return ops;
}

/**
 * Runs every operation the source supports, one at a time (a contract check should not be what
 * trips the upstream's rate limit), and the tool-list check for a tool server.
 */
export async function checkContract(source: Checkable, tap: Tap, samples: Samples, now = Date.now()): Promise<ContractRow[]> {
  const rows: ContractRow[] = [];
  for (const op of operations(samples, now)) {
    if (!source.supports(op.method, op.kind)) continue;
    tap.routes = [];
    tap.unreadable = [];
    let failure: unknown;
    try {
      await op.call(source);
    } catch (err) {
      failure = err;
    }
    const routes = [...new Set([...tap.routes, ...(failure instanceof UpstreamError ? [failure.route] : [])])];
    const result = failure !== undefined ? describeFailure(failure, source.name) : describeUnreadable(tap.unreadable);
    rows.push({ source: source.name, operation: op.label, routes, ok: result === null, result: result ?? 'ok' });
  }
  if (source.toolDrift) {
    let result: string | null;
    try {
      const drift = await source.toolDrift();
      result = drift.length ? `tool list changed: ${drift.join('; ')}` : null;
    } catch (err) {
      result = describeFailure(err, source.name);
    }
    rows.push({ source: source.name, operation: 'tools/list', routes: ['mcp tools/list'], ok: result === null, result: result ?? 'ok' });
  }
  return rows;
}

function describeFailure(err: unknown, source: SourceName): string {
  // "No such entity" for a sample the upstream does not know is an answer, but not the one expected.
  if (err instanceof UpstreamError && err.kind === 'not_found') return `${err.route} answered "not found" for the sample`;
  return diagnose(err, source).summary;
}

function describeUnreadable(found: Tap['unreadable']): string | null {
  const first = found.find((f) => f.fields.length > 0) ?? found.find((f) => f.rows > 0);
  if (!first) return null;
  const field = first.fields[0];
  if (!field) return `${first.route}: ${first.rows} list row${first.rows === 1 ? '' : 's'} could not be read`;
  const more = first.fields.length - 1;
  return `${first.route}: ${field.field} ${field.reason} (got ${previewValue(field.value)})${more > 0 ? ` and ${more} more` : ''}`;
}
