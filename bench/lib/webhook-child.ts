/**
 * The fake webhook receivers of the fan-out in their own process: verifying every signature and
 * keeping every event must not count against the sender's event loop. Argument: how many.
 */
import { startFakeWebhook } from '../../test/fakes/webhook/index.js';
import { serveParent } from './child.js';

const count = Number(process.argv[2] ?? 3);
const hooks = await Promise.all(Array.from({ length: count }, () => startFakeWebhook()));

/** What one receiver saw: every request, and the events it accepted (each once, however often delivered). */
export interface ReceiverCounts {
  requests: number;
  /** Requests answered with anything but 200. */
  refused: number;
  /** Accepted event ids, in the order accepted. */
  ids: string[];
  /** Accepted events that arrived more than once. */
  redelivered: number;
}

serveParent(
  { receivers: hooks.map((h) => ({ url: h.url, secret: h.secret })) },
  (msg) => {
    if (msg.op !== 'counts') throw new Error(`unknown op ${msg.op}`);
    const receivers: ReceiverCounts[] = hooks.map((h) => {
      const calls = h.calls();
      const events = h.events();
      return {
        requests: calls.length,
        refused: calls.filter((c) => c.status !== 200).length,
        ids: events.map((e) => e.id),
        redelivered: events.filter((e) => e.deliveries > 1).length,
      };
    });
    return { receivers };
  },
  async () => {
    await Promise.all(hooks.map((h) => h.close()));
  },
);
