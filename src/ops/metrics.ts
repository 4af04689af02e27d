import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

const CIRCUIT_VALUE: Record<string, number> = { closed: 0, 'half-open': 1, open: 2 };

/** What operators watch: commands, upstream calls, the cache and digests. No label ever carries a secret or free text. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'polbot_' });
  // Read when scraped: the breakers live in the upstream connection, made after the metrics.
  let circuits: () => Partial<Record<string, string>> = () => ({});
  return {
    /** Where the circuit gauge reads each source's breaker from. */
    watchCircuits(read: () => Partial<Record<string, string>>) {
      circuits = read;
    },
    circuit: new Gauge({
      name: 'polbot_upstream_circuit_state',
      help: "Each source's circuit breaker: 0 closed (calls go through), 1 half-open (trying), 2 open (calls held back)",
      labelNames: ['source'] as const,
      registers: [registry],
      collect() {
        for (const [source, state] of Object.entries(circuits())) this.set({ source }, CIRCUIT_VALUE[state ?? 'closed'] ?? 0);
      },
    }),
    registry,
    commands: new Histogram({
      name: 'polbot_command_duration_seconds',
      help: 'Time from command text to reply, by command, platform and reply kind',
      labelNames: ['command', 'platform', 'reply'] as const,
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10],
      registers: [registry],
    }),
    upstream: new Histogram({
      name: 'polbot_upstream_request_duration_seconds',
      help: 'Upstream HTTP exchanges by route template and status',
      labelNames: ['route', 'status'] as const,
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    cache: new Counter({
      name: 'polbot_cache_lookups_total',
      help: 'Cache lookups by data kind and outcome (hit, miss, stale, error)',
      labelNames: ['method', 'outcome'] as const,
      registers: [registry],
    }),
    unreadable: new Counter({
      name: 'polbot_upstream_unreadable_total',
      help: 'Upstream values outside their domain (shown as unreadable) by route template and field; field "(row)" counts skipped list rows',
      labelNames: ['route', 'field'] as const,
      registers: [registry],
    }),
    digests: new Counter({
      name: 'polbot_digest_deliveries_total',
      help: 'Digest runs claimed by this replica, by platform and how they ended: delivered, confirmed (found already posted after a crash), skipped, failed, released (to retry), lost (taken over)',
      labelNames: ['platform', 'outcome'] as const,
      registers: [registry],
    }),
    rateLimited: new Counter({
      name: 'polbot_rate_limited_total',
      help: 'Commands refused by the per-person or per-channel limit',
      labelNames: ['platform', 'scope'] as const,
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
