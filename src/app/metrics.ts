import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** What operators watch: commands, upstream calls, the cache and digests. No label ever carries a secret or free text. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'polbot_' });
  return {
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
      help: 'Digest deliveries by platform and outcome',
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
