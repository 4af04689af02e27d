import { BrokenCircuitError, CircuitState, ConsecutiveBreaker, circuitBreaker, handleWhen, type CircuitBreakerPolicy } from 'cockatiel';
import type { EntityKind, HealthStatus, SourceName } from './domain.js';
import { UpstreamError } from './errors.js';
import { TTL_MS } from './cache/ttl.js';
import { TOOL_BACKED } from './mcp/contract.js';
import type { DataMethod, DataSource, Fetched } from './source.js';

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface BreakerOptions {
  /** Consecutive upstream failures that open a source's circuit. */
  threshold?: number;
  /** How long a circuit stays open before a trial call. */
  cooldownMs?: number;
}

const METHODS = Object.keys(TTL_MS) as DataMethod[];

interface Member {
  source: DataSource;
  breaker: CircuitBreakerPolicy;
  /** When the source last answered anything (epoch ms): a source that just answered is up. */
  answeredAt: number;
  /** The health probe under way, shared by every call that waits on it. */
  probe?: Promise<void>;
}

/** A source that answered this recently is taken to be up without asking it again. */
const ANSWERED_RECENTLY_MS = 2_000;

export interface FailoverSource extends DataSource {
  /** Each source's circuit, for `/healthz`, `/metrics` and `/pol health`. */
  breakers(): Partial<Record<SourceName, BreakerState>>;
  /** The raw sources, preferred first: for diagnosis and the contract check, which bypass the breakers. */
  readonly members: readonly DataSource[];
}

/**
 * Every configured source behind its own circuit breaker. A call goes to the preferred source
 * that can answer it and, when that source fails as a service (circuit open, 5xx, refused, an
 * unreadable answer), to the other for what the other can supply. Answers such as "not found" are
 * answers: they never fail over.
 */
export function failover(sources: readonly DataSource[], options: BreakerOptions = {}): FailoverSource {
  if (sources.length === 0) throw new Error('failover needs at least one source');
  const members: Member[] = sources.map((source) => ({
    source,
    breaker: circuitBreaker(
      // An answer of another shape is an answer: the service is up, and its other routes may be
      // fine. It fails over and may be served stale, but does not hold every call back.
      handleWhen((err) => err instanceof UpstreamError && err.isUpstreamFailure && err.kind !== 'bad_response'),
      { halfOpenAfter: options.cooldownMs ?? 10_000, breaker: new ConsecutiveBreaker(options.threshold ?? 5) },
    ),
    answeredAt: 0,
  }));
  const preferred = members[0]!;

  /** Runs `fn` through the member's breaker, noting when the source answered. */
  async function through<T>(m: Member, fn: () => Promise<T>): Promise<T> {
    const value = await m.breaker.execute(fn);
    m.answeredAt = Date.now();
    return value;
  }

  /**
   * Resolves once the source is known to be up, or throws its failure: refused, timed out, a failed
   * handshake, its circuit open, its key refused. Concurrent callers share one health call.
   */
  function reachable(m: Member): Promise<void> {
    if (Date.now() - m.answeredAt < ANSWERED_RECENTLY_MS) return Promise.resolve();
    m.probe ??= through(m, () => m.source.health())
      .then(
        () => undefined,
        (raw: unknown) => {
          const err = asUpstreamError(raw, m.source.name, 'health');
          // Any other answer (no health tool, say) still comes from a source that is up.
          if (err.isUpstreamFailure || err.kind === 'unauthorized') throw err;
        },
      )
      .finally(() => {
        m.probe = undefined;
      });
    return m.probe;
  }

  function order(method: DataMethod, kind: EntityKind | undefined): Member[] {
    const able = members.filter((m) => m.source.supports(method, kind));
    // The tool server goes first only for what it answers natively; a project record made from its
    // list and market data is poorer than the REST record.
    if (preferred.source.name === 'mcp' && !TOOL_BACKED.has(method) && !(method === 'list' && kind === 'project')) {
      able.sort((a, b) => Number(a.source.name === 'mcp') - Number(b.source.name === 'mcp'));
    }
    return able;
  }

  async function call(method: DataMethod, args: unknown[]): Promise<Fetched<unknown>> {
    const kind = args[0] === 'project' || args[0] === 'exchange' ? args[0] : undefined;
    const candidates = order(method, kind);
    // No source can answer: the preferred one says so in its own words ("needs the REST service"),
    // but only while it is up. When it is down, that is what the person is told: its failure, not
    // the absence of a source that was never configured.
    if (candidates.length === 0) {
      await reachable(preferred);
      return invoke(preferred.source, method, args);
    }
    let last: UpstreamError | undefined;
    for (const m of candidates) {
      try {
        return await through(m, () => invoke(m.source, method, args));
      } catch (raw) {
        const err = asUpstreamError(raw, m.source.name, method);
        // A timed-out call is not tried again on the other source: that would double the wait for
        // every call. The failure counts towards this source's circuit, and once it opens, calls go
        // to the other source straight away.
        if (!err.isUpstreamFailure || err.kind === 'timeout') throw err;
        last = err;
      }
    }
    throw last!;
  }

  /**
   * Every source's health route through its own breaker: this is the trial call that closes a
   * source's circuit after a failure spell, also for the source that no command asks first.
   */
  async function health(): Promise<Fetched<HealthStatus>> {
    const results = await Promise.allSettled(members.map((m) => through(m, () => m.source.health())));
    const answered = results.find((r): r is PromiseFulfilledResult<Fetched<HealthStatus>> => r.status === 'fulfilled');
    if (answered) return answered.value;
    throw asUpstreamError((results[0] as PromiseRejectedResult).reason, preferred.source.name, 'health');
  }

  const methods = Object.fromEntries(METHODS.map((m) => [m, (...args: unknown[]) => (m === 'health' ? health() : call(m, args))]));
  return {
    ...(methods as unknown as Omit<DataSource, 'name' | 'close' | 'supports'>),
    name: preferred.source.name,
    members: members.map((m) => m.source),
    supports: (method, kind) => members.some((m) => m.source.supports(method, kind)),
    breakers: () => Object.fromEntries(members.map((m) => [m.source.name, stateOf(m.breaker)])),
    close: async () => {
      await Promise.all(members.map((m) => m.source.close()));
    },
  };
}

function invoke(source: DataSource, method: DataMethod, args: unknown[]): Promise<Fetched<unknown>> {
  return (source[method] as (...a: unknown[]) => Promise<Fetched<unknown>>).apply(source, args);
}

function stateOf(breaker: CircuitBreakerPolicy): BreakerState {
  if (breaker.state === CircuitState.Closed) return 'closed';
  if (breaker.state === CircuitState.HalfOpen) return 'half-open';
  return 'open';
}

function asUpstreamError(err: unknown, source: SourceName, method: DataMethod): UpstreamError {
  if (err instanceof UpstreamError) return err;
  if (err instanceof BrokenCircuitError) {
    return new UpstreamError('unavailable', `${source} ${method}`, { detail: `${source} circuit open after repeated upstream failures` });
  }
  throw err;
}
