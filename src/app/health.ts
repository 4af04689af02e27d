import type { CachedDataSource } from '../api/cache/cached-source.js';

export type ComponentState = { ok: boolean; detail?: string };
export type ComponentProbe = () => ComponentState | Promise<ComponentState>;

export interface HealthReport {
  status: 'ok' | 'degraded' | 'stopping';
  uptimeSec: number;
  upstream: { source: string; circuit: string; healthy: boolean | null; detail?: string; cache: { entries: number; hitRatio: number | null; staleServed: number } };
  components: Record<string, ComponentState>;
}

/**
 * `/healthz` is a liveness answer first: it never waits on the upstream (the last health result
 * is reported and a refresh starts in the background), and answers 503 only while shutting down,
 * so an orchestrator does not restart polbot because the upstream is having a bad day.
 */
export class Health {
  private readonly started = Date.now();
  private readonly probes = new Map<string, ComponentProbe>();
  private upstreamHealthy: boolean | null = null;
  private upstreamDetail: string | undefined;
  private refreshing: Promise<void> | null = null;
  stopping = false;

  constructor(private readonly source: CachedDataSource) {}

  register(name: string, probe: ComponentProbe): void {
    this.probes.set(name, probe);
  }

  private refreshUpstream(): void {
    if (this.refreshing) return;
    this.refreshing = this.source
      .health()
      .then((h) => {
        this.upstreamHealthy = h.data.healthy && !h.meta.stale;
        this.upstreamDetail = h.data.checks.filter((c) => !c.ok).map((c) => `${c.name} failing`).join(', ') || undefined;
      })
      .catch((err: Error) => {
        this.upstreamHealthy = false;
        this.upstreamDetail = err.message;
      })
      .finally(() => {
        this.refreshing = null;
      });
  }

  async report(): Promise<HealthReport> {
    this.refreshUpstream();
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
    const upstreamOk = this.upstreamHealthy !== false && stats.breaker === 'closed';
    const degraded = !upstreamOk || Object.values(components).some((c) => !c.ok);
    return {
      status: this.stopping ? 'stopping' : degraded ? 'degraded' : 'ok',
      uptimeSec: Math.round((Date.now() - this.started) / 1000),
      upstream: {
        source: this.source.name,
        circuit: stats.breaker,
        healthy: this.upstreamHealthy,
        ...(this.upstreamDetail ? { detail: this.upstreamDetail } : {}),
        cache: { entries: stats.entries, hitRatio: lookups ? Math.round((stats.hits / lookups) * 1000) / 1000 : null, staleServed: stats.staleServed },
      },
      components,
    };
  }
}
