import { Rng } from './data/rng.js';

/**
 * Fault injection for reliability tests and benchmarks. Rates are probabilities per request,
 * drawn from a seeded stream so a failing run can be replayed.
 */
export interface FaultSettings {
  /** Added before every answer. */
  latencyMs: number;
  /** Uniform extra latency in [0, jitterMs). */
  jitterMs: number;
  /** Share of requests answered 500 or 503 (alternating by draw). */
  errorRate: number;
  /** Share of requests answered 429 with Retry-After. */
  rateLimitRate: number;
  retryAfterSec: number;
  /** Health routes answer 503 with failing checks. */
  healthFailing: boolean;
  /** Bodies trickle out over this many milliseconds (headers arrive at once). */
  slowBodyMs: number;
  /** Share of answers cut off mid-JSON. */
  malformedRate: number;
  /** Share of answers that are valid JSON of the wrong shape. */
  unexpectedShapeRate: number;
  /** Share of requests whose connection is reset without an answer. */
  resetRate: number;
  /** Only paths matching this are affected (health failing aside); all when unset. */
  match?: RegExp;
}

export type OneShotFault =
  | { kind: 'status'; status: number; retryAfterSec?: number }
  | { kind: 'malformed' }
  | { kind: 'shape' }
  | { kind: 'reset' }
  | { kind: 'slow'; ms: number }
  | { kind: 'delay'; ms: number }
  | { kind: 'redirect'; location: string; status?: number };

export type FaultAction = { kind: 'none' } | OneShotFault;

const DEFAULTS: FaultSettings = {
  latencyMs: 0,
  jitterMs: 0,
  errorRate: 0,
  rateLimitRate: 0,
  retryAfterSec: 1,
  healthFailing: false,
  slowBodyMs: 0,
  malformedRate: 0,
  unexpectedShapeRate: 0,
  resetRate: 0,
};

interface Scripted {
  match: RegExp;
  fault: OneShotFault;
  remaining: number;
}

export class Faults {
  private settings: FaultSettings = { ...DEFAULTS };
  private scripted: Scripted[] = [];
  private readonly rng: Rng;

  constructor(seed: number) {
    this.rng = Rng.derive(seed, 'faults');
  }

  get current(): Readonly<FaultSettings> {
    return this.settings;
  }

  set(partial: Partial<FaultSettings>): void {
    this.settings = { ...this.settings, ...partial };
  }

  reset(): void {
    this.settings = { ...DEFAULTS };
    this.scripted = [];
  }

  /** The next `times` requests whose path (or `mcp:<tool>` for tool calls) matches get this fault. */
  next(match: string | RegExp, fault: OneShotFault, times = 1): void {
    const pattern = typeof match === 'string' ? new RegExp(match.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : match;
    this.scripted.push({ match: pattern, fault, remaining: times });
  }

  /** Latency to add before answering a request. */
  delayFor(path: string): number {
    const s = this.settings;
    if (!this.applies(path) || (s.latencyMs === 0 && s.jitterMs === 0)) return 0;
    return s.latencyMs + (s.jitterMs > 0 ? this.rng.float() * s.jitterMs : 0);
  }

  /** Decides what goes wrong with this request, consuming a scripted fault when one matches. */
  decide(path: string): FaultAction {
    const i = this.scripted.findIndex((f) => f.match.test(path));
    if (i !== -1) {
      const f = this.scripted[i]!;
      if (--f.remaining <= 0) this.scripted.splice(i, 1);
      return f.fault;
    }
    if (!this.applies(path)) return { kind: 'none' };
    const s = this.settings;
    if (s.resetRate > 0 && this.rng.chance(s.resetRate)) return { kind: 'reset' };
    if (s.rateLimitRate > 0 && this.rng.chance(s.rateLimitRate)) {
      return { kind: 'status', status: 429, retryAfterSec: s.retryAfterSec };
    }
    if (s.errorRate > 0 && this.rng.chance(s.errorRate)) {
      return { kind: 'status', status: this.rng.chance(0.5) ? 500 : 503 };
    }
    if (s.malformedRate > 0 && this.rng.chance(s.malformedRate)) return { kind: 'malformed' };
    if (s.unexpectedShapeRate > 0 && this.rng.chance(s.unexpectedShapeRate)) return { kind: 'shape' };
    if (s.slowBodyMs > 0) return { kind: 'slow', ms: s.slowBodyMs };
    return { kind: 'none' };
  }

  private applies(path: string): boolean {
    return !this.settings.match || this.settings.match.test(path);
  }
}

/** Requests seen by the simulator, for tests and benchmarks that count upstream calls. */
export class RequestCounter {
  total = 0;
  /** By route template, e.g. `GET /projects_data/v1/{slug}/pol/current`. */
  readonly byRoute = new Map<string, number>();
  /** By concrete path and query, e.g. `/projects_data/v1/bitcoin/pol/current`. */
  readonly byPath = new Map<string, number>();
  /** MCP tool calls by tool name. */
  readonly byTool = new Map<string, number>();

  count(map: Map<string, number>, key: string): void {
    map.set(key, (map.get(key) ?? 0) + 1);
  }

  route(template: string): number {
    return this.byRoute.get(template) ?? 0;
  }

  path(path: string): number {
    return this.byPath.get(path) ?? 0;
  }

  tool(name: string): number {
    return this.byTool.get(name) ?? 0;
  }

  reset(): void {
    this.total = 0;
    this.byRoute.clear();
    this.byPath.clear();
    this.byTool.clear();
  }
}
