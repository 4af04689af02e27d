import type { CachedDataSource } from '../api/cache/cached-source.js';
import { checkSources, SOURCE_LABEL, type Problem } from '../api/diagnose.js';
import type { SourceName } from '../api/domain.js';
import type { Logger } from '../log.js';

export type ComponentState = { ok: boolean; detail?: string };
export type ComponentProbe = () => ComponentState | Promise<ComponentState>;

export interface HealthReport {
  status: 'ok' | 'degraded' | 'stopping';
  uptimeSec: number;
  upstream: {
    source: string;
    /** Each source's circuit breaker. */
    circuits: Record<string, string>;
    /** Null until the first check has finished. */
    healthy: boolean | null;
    /** Per source: what the last check found wrong (empty when it agreed). */
    problems: Record<string, Problem[]>;
    cache: { entries: number; hitRatio: number | null; staleServed: number };
  };
  components: Record<string, ComponentState>;
}

/** Checks cost a few upstream calls each; an orchestrator polling every second gets the last result. */
const CHECK_INTERVAL_MS = 10_000;

/**
 * `/healthz` is a liveness answer first: it never waits on the upstream (the last check is
 * reported and a new one starts in the background), and answers 503 only while shutting down, so
 * an orchestrator does not restart polbot because the upstream is having a bad day.
 */
export class Health {
  private readonly started = Date.now();
  private readonly probes = new Map<string, ComponentProbe>();
  private problems: Record<string, Problem[]> | null = null;
  private refreshing: Promise<void> | null = null;
  private lastCheck = 0;
  stopping = false;

  constructor(
    private readonly source: CachedDataSource,
    private readonly options: { checkIntervalMs?: number } = {},
  ) {}

  register(name: string, probe: ComponentProbe): void {
    this.probes.set(name, probe);
  }

  /** Runs a check now (start-up) and resolves with its findings. */
  check(): Promise<Record<string, Problem[]>> {
    if (!this.refreshing) {
      this.lastCheck = Date.now();
      // Through the cache and breakers as well: after a failure spell this is the trial call that
      // closes a circuit even when no one asks polbot anything.
      void this.source.health().catch(() => undefined);
      this.refreshing = checkSources(this.source.cache.inner.members)
        .then((checks) => {
          this.problems = Object.fromEntries(checks.map((c) => [c.source, c.problems]));
        })
        .finally(() => {
          this.refreshing = null;
        });
    }
    return this.refreshing.then(() => this.problems ?? {});
  }

  async report(): Promise<HealthReport> {
    if (Date.now() - this.lastCheck >= (this.options.checkIntervalMs ?? CHECK_INTERVAL_MS)) void this.check().catch(() => undefined);
    const stats = this.source.cache.stats();
    const components: Record<string, ComponentState> = {};
    for (const [name, probe] of this.probes) {
      try {
        components[name] = await probe();
      } catch (err) {
        components[name] = { ok: false, detail: (err as Error).message };
      }
    }
    const lookups = stats.hits + stats.misses;
    const healthy = this.problems === null ? null : Object.values(this.problems).every((p) => p.length === 0);
    const circuits = Object.fromEntries(Object.entries(stats.breakers).map(([k, v]) => [k, v ?? 'closed']));
    const upstreamOk = healthy !== false && Object.values(circuits).every((s) => s === 'closed');
    const degraded = !upstreamOk || Object.values(components).some((c) => !c.ok);
    return {
      status: this.stopping ? 'stopping' : degraded ? 'degraded' : 'ok',
      uptimeSec: Math.round((Date.now() - this.started) / 1000),
      upstream: {
        source: this.source.name,
        circuits,
        healthy,
        problems: this.problems ?? {},
        cache: {
          entries: stats.entries,
          hitRatio: lookups ? Math.round((stats.hits / lookups) * 1000) / 1000 : null,
          staleServed: stats.staleServed,
        },
      },
      components,
    };
  }
}

/** What a check found, one line per problem, for a log or a terminal. */
export function problemLines(problems: Record<string, Problem[]>): string[] {
  return Object.entries(problems).flatMap(([source, list]) =>
    list.map((p) => `${SOURCE_LABEL[source as SourceName] ?? source}: ${p.summary}`),
  );
}

/**
 * The start-up check: every configured source checked once and what it found logged, without
 * holding start-up back (an upstream that comes up a minute later is a normal morning).
 */
export function logStartupCheck(health: Health, log: Logger): Promise<void> {
  return health.check().then(
    (problems) => {
      const lines = problemLines(problems);
      if (lines.length === 0) log.info({ sources: Object.keys(problems) }, 'upstream check: every source answers as polbot expects');
      for (const line of lines) log.warn(`upstream check: ${line}`);
    },
    (err: unknown) => log.warn({ err }, 'upstream check could not run'),
  );
}
