import { Counter, type Registry } from 'prom-client';
import type { RefusalReason } from './ingress/protocol.js';

/**
 * Requests to the Slack endpoint refused before anything ran, counted on the registry behind
 * `/metrics`: one counter per registry, however many adapters a process (or a test) starts on it.
 */
export function slackRefusals(registry: Registry): (reason: RefusalReason) => void {
  const name = 'polbot_slack_requests_refused_total';
  const counter =
    (registry.getSingleMetric(name) as Counter<'reason'> | undefined) ??
    new Counter({
      name,
      help: 'Requests to the Slack endpoint refused before anything ran: bad_signature (forged or missing), stale (timestamp over 5 minutes off), replayed',
      labelNames: ['reason'] as const,
      registers: [registry],
    });
  return (reason) => counter.inc({ reason });
}
