/**
 * Webhook fan-out: 200 incidents (40 in the quick run), each told to three signed-webhook
 * destinations, so 600 events (120), queued by the real store (PGlite in memory) in the
 * transaction that opens each incident and dispatched by the real Outbox, pass after pass as a
 * replica's ticks would, to three fake receivers on loopback in a child process of their own, each
 * verifying the signature and refusing replays as a real receiver would. The destinations are read
 * from POLBOT_DESTINATIONS by the product's own parser.
 *
 * Measured: events per second from the first pass to the last event sent; each send's latency,
 * from the request's creation in the HTTP client to the end of the receiver's answer (undici's
 * diagnostics channels, so nothing in the product is wrapped); and that each event was sent once:
 * every receiver's requests, the ids it accepted, and the store's record of every event done at its
 * first attempt. The store and the sending share one event loop, as in a replica; no latency is
 * injected (the simulator plays no part).
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import { fileURLToPath } from 'node:url';
import { parseDestinations, secretVariable } from '../../src/alerts/destinations.js';
import { Outbox } from '../../src/alerts/outbox.js';
import { AlertStore } from '../../src/alerts/store.js';
import { openPglite } from '../../src/db/connection.js';
import { migrate } from '../../src/db/migrations.js';
import { forkChild } from '../lib/child.js';
import { round, summarize } from '../lib/stats.js';
import { fmtMs, type BenchOptions, type Row, type ScenarioResult } from '../lib/types.js';
import type { ReceiverCounts } from '../lib/webhook-child.js';

const DESTINATIONS = 3;
const RULES_PER_CHANNEL = 10;
/** The passes stop here if they have not finished, and report how far they got. */
const TIME_BUDGET_MS = { quick: 30_000, full: 300_000 };

interface Request {
  origin?: unknown;
}

/** How long each request to one of `origins` took, from its creation to the end of its answer. */
function timeRequests(origins: readonly string[]): { times: number[]; stop(): void } {
  const started = new WeakMap<object, number>();
  const times: number[] = [];
  const ours = (request: Request) => origins.includes(String(request.origin).replace(/\/$/, ''));
  const onCreate = (message: unknown) => {
    const { request } = message as { request: Request };
    if (ours(request)) started.set(request, performance.now());
  };
  const onEnd = (message: unknown) => {
    const { request } = message as { request: Request };
    const t = started.get(request);
    if (t === undefined) return;
    started.delete(request);
    times.push(performance.now() - t);
  };
  diagnosticsChannel.subscribe('undici:request:create', onCreate);
  diagnosticsChannel.subscribe('undici:request:trailers', onEnd);
  return {
    times,
    stop() {
      diagnosticsChannel.unsubscribe('undici:request:create', onCreate);
      diagnosticsChannel.unsubscribe('undici:request:trailers', onEnd);
    },
  };
}

export async function fanoutScenario(o: BenchOptions): Promise<ScenarioResult> {
  const incidents = o.quick ? 40 : 200;
  const expected = incidents * DESTINATIONS;
  const child = await forkChild<{ receivers: { url: string; secret: string }[] }>(
    fileURLToPath(new URL('../lib/webhook-child.ts', import.meta.url)),
    [String(DESTINATIONS)],
  );
  const db = await openPglite();
  try {
    await migrate(db);
    const { receivers } = child.ready;
    const names = receivers.map((_, i) => `hook-${String.fromCharCode(97 + i)}`);
    const env = Object.fromEntries(names.map((name, i) => [secretVariable(name), receivers[i]!.secret]));
    const read = parseDestinations(names.map((name, i) => `${name}=webhook:${receivers[i]!.url}`).join(','), env);
    if (!read.ok) throw new Error(read.message);

    // One rule a name, each opening one incident that queues an event per destination.
    const store = new AlertStore(db);
    const now = Date.now();
    const queued0 = performance.now();
    for (let i = 0; i < incidents; i++) {
      const entity = { kind: 'project' as const, slug: `fanout-${i}`, name: `Fanout ${i}` };
      const created = await store.create(
        {
          platform: 'slack',
          workspaceId: 'T000000',
          channelId: `C${String(Math.floor(i / RULES_PER_CHANNEL)).padStart(8, '0')}`,
          entities: [entity],
          condition: { kind: 'pol_above', threshold: 0.05 },
          conditionText: 'pol above 5%',
          everySec: 300,
          cooldownSec: 0,
          createdBy: 'U0',
          notify: names,
        },
        now,
        { perChannel: incidents, perWorkspace: incidents },
      );
      if (!created.ok) throw new Error(`rule ${i} was refused: ${created.reason}`);
      await store.openIncident(
        created.rule.id,
        entity.kind,
        entity.slug,
        { holds: true, change: { from: '4.0%', to: '6.2%', trend: 'worse' } },
        now,
      );
    }
    const queueMs = performance.now() - queued0;

    const outbox = new Outbox({ db, destinations: read.destinations, instance: 'bench', log: o.log });
    const timing = timeRequests(read.destinations.map((d) => (d.kind === 'webhook' ? new URL(d.url).origin : '')));
    const report = { sent: 0, retried: 0, failed: 0, lost: 0, passes: 0 };
    const budget = o.quick ? TIME_BUDGET_MS.quick : TIME_BUDGET_MS.full;
    const started = performance.now();
    try {
      while (report.sent < expected && performance.now() - started < budget) {
        const pass = await outbox.dispatch(Date.now());
        report.passes++;
        report.sent += pass.sent;
        report.retried += pass.retried;
        report.failed += pass.failed;
        report.lost += pass.lost;
        if (pass.sent + pass.retried + pass.failed + pass.lost === 0) break;
      }
    } finally {
      timing.stop();
    }
    const wallMs = performance.now() - started;

    const counts = (await child.call('counts')).receivers as ReceiverCounts[];
    const stored = await db.query<{ state: string; attempts: number; n: number }>(
      'SELECT state, attempts, count(*)::int AS n FROM alert_events GROUP BY state, attempts ORDER BY state, attempts',
    );
    const events = await db.query<{ id: number; destination: string }>('SELECT id, destination FROM alert_events ORDER BY id');
    const requests = counts.reduce((n, c) => n + c.requests, 0);
    const accepted = counts.reduce((n, c) => n + c.ids.length, 0);
    // Each receiver accepted exactly the ids of the events queued for its destination, each once.
    const idsMatch = names.every((name, i) => {
      const want = events
        .filter((e) => e.destination === name)
        .map((e) => `polbot-evt-${e.id}`)
        .sort();
      const got = [...counts[i]!.ids].sort();
      return want.length === got.length && want.every((id, k) => id === got[k]);
    });
    const once =
      events.length === expected &&
      report.sent === expected &&
      requests === expected &&
      accepted === expected &&
      idsMatch &&
      counts.every((c) => c.refused === 0 && c.redelivered === 0) &&
      stored.length === 1 &&
      stored[0]!.state === 'done' &&
      stored[0]!.attempts === 1;
    const latency = summarize(timing.times);
    const perSecond = report.sent / (wallMs / 1000);

    const notes: string[] = [];
    if (report.sent < expected) notes.push(`sent ${report.sent} of ${expected} events within the ${budget / 1000} s budget`);
    if (report.retried || report.failed || report.lost)
      notes.push(`${report.retried} sends to be retried, ${report.failed} given up, ${report.lost} lost to another holder`);
    const count = (n: number) => n.toLocaleString('en-US');
    const rows: Row[] = [
      {
        metric: `9. webhook fan-out: events sent per second (${count(incidents)} incidents × ${DESTINATIONS} signed webhooks on loopback, by the Outbox)`,
        measured: `${count(Math.round(perSecond))} events/s (${count(report.sent)} in ${fmtMs(wallMs)}, ${report.passes} passes)`,
        target: '—',
        pass: null,
      },
      {
        metric: '9. webhook fan-out: send latency p50 / p95 (request to the end of the answer)',
        measured: `${fmtMs(latency.p50)} / ${fmtMs(latency.p95)} (max ${fmtMs(latency.max)}, ${count(latency.n)} sends)`,
        target: '—',
        pass: null,
      },
      {
        metric: '9. webhook fan-out: each event sent once (receivers’ requests / events accepted / events queued)',
        measured: `${count(requests)} / ${count(accepted)} / ${count(events.length)}`,
        target: 'all equal, each at its first attempt',
        pass: once,
      },
    ];
    return {
      rows,
      details: {
        incidents,
        destinations: DESTINATIONS,
        events: events.length,
        queueMs: round(queueMs),
        wallMs: round(wallMs),
        perSecond: round(perSecond),
        latencyMs: Object.fromEntries(Object.entries(latency).map(([k, v]) => [k, round(v, 2)])),
        report,
        receivers: counts.map(({ ids, ...c }) => ({ ...c, accepted: ids.length })),
        stored,
        once,
      },
      ...(notes.length ? { notes } : {}),
    };
  } finally {
    await db.close();
    await child.close();
  }
}
