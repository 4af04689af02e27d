/**
 * The burst through Telegram: 500 `/pol <name>` commands over 50 entities (150 in the quick run,
 * still over all 50), each from a person of their own in a private chat, queued at once at the
 * fake Bot API (`telegram-child.ts`, a process of its own) and taken by the real adapter by long
 * polling, with its grammY client, throttler and database (PGlite under a temporary directory, as
 * `polbot start` keeps it). Upstream requests are counted at the simulator against the same
 * minimum as the core's burst; each command is timed from the moment it was sent to the moment the
 * bot's first message answering it reached Telegram.
 *
 * What bounds the burst is Telegram's flood limit, which the adapter keeps with grammY's throttler:
 * about 30 messages a second over all chats (one a second in each private chat). 500 cards cannot
 * all be answered in less than 500 / 30 ≈ 17 s, whatever the core does; the table says how close
 * the bot comes to that pace, and how long a command takes when it arrives alone.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { telegram } from '../../adapters/telegram/index.js';
import { openDatabase } from '../../src/db/index.js';
import { forkChild, type ChildHandle } from '../lib/child.js';
import { benchCore, clearCaches } from '../lib/polbot.js';
import type { SimHandle } from '../lib/sim.js';
import type { Answered, BurstOutcome } from '../lib/telegram-child.js';
import { round, shuffled, summarize } from '../lib/stats.js';
import { fmtMs, type BenchOptions, type Row, type ScenarioResult } from '../lib/types.js';
import { BURST_COMMANDS, BURST_ENTITIES, excess, isolate } from './burst.js';

const QUICK_COMMANDS = 150;
/** Commands sent one at a time on cold caches before the burst: the latency with no queue in front. */
const ALONE = { quick: 3, full: 10 };
/** The throttler's overall pace (grammY's apiThrottler default, Telegram's documented limit). */
const MESSAGES_PER_SECOND = 30;

type Fake = ChildHandle<{ url: string; token: string }>;

async function send(fake: Fake, texts: string[], timeoutMs: number): Promise<BurstOutcome> {
  const { outcome } = (await fake.call('burst', { texts, timeoutMs })) as unknown as { outcome: BurstOutcome };
  return outcome;
}

const unanswered = (o: BurstOutcome) => o.answered.filter((a) => a.repliedAt === undefined);

export async function telegramScenario(sim: SimHandle, o: BenchOptions): Promise<ScenarioResult> {
  const count = o.quick ? QUICK_COMMANDS : BURST_COMMANDS;
  const core = await benchCore(sim, o.log);
  const fake = await forkChild<{ url: string; token: string }>(fileURLToPath(new URL('../lib/telegram-child.ts', import.meta.url)));
  const dataDir = await mkdtemp(join(tmpdir(), 'polbot-bench-telegram-'));
  const db = await openDatabase({ dataDir });
  let handle: Awaited<ReturnType<ReturnType<typeof telegram>['start']>> | undefined;
  try {
    await sim.setFaults({ latencyMs: 0, jitterMs: 0 });
    const iso = await isolate(core, sim, BURST_ENTITIES);
    const minimum = iso.minimum.size;
    const commands = shuffled(
      Array.from({ length: count }, (_, i) => `/pol ${iso.names[i % iso.names.length]!}`),
      7,
    );

    handle = await telegram({ core, telegram: { token: fake.ready.token, apiUrl: fake.ready.url }, db, log: o.log }).start();
    await sim.setFaults({ latencyMs: o.latencyMs, jitterMs: o.jitterMs });

    // Untimed: the adapter's and the core's code paths warmed, not their caches.
    clearCaches(core);
    await send(fake, [commands[0]!], 30_000);

    // Alone, on cold caches: no queue in front, what one person waits for on a quiet bot.
    const alone: Answered[] = [];
    for (const name of iso.names.slice(0, o.quick ? ALONE.quick : ALONE.full)) {
      clearCaches(core);
      alone.push(...(await send(fake, [`/pol ${name}`], 30_000)).answered);
    }

    clearCaches(core);
    await sim.resetCounter();
    // Each command costs one message at the throttler's pace; twice that is allowed before giving up.
    const burst = await send(fake, commands, Math.max(30_000, (2 * 1000 * count) / MESSAGES_PER_SECOND));
    const counter = await sim.counter();
    const ratio = counter.total / minimum;

    const replied = burst.answered.filter((a) => a.repliedAt !== undefined);
    const latency = summarize(replied.map((a) => a.repliedAt! - a.saidAt));
    const taken = summarize(burst.answered.filter((a) => a.takenAt !== undefined).map((a) => a.takenAt! - a.saidAt));
    const aloneMs = summarize(alone.filter((a) => a.repliedAt !== undefined).map((a) => a.repliedAt! - a.saidAt));
    const start = Math.min(...burst.answered.map((a) => a.saidAt));
    const lastReply = Math.max(...replied.map((a) => a.repliedAt!));
    const seconds = (lastReply - start) / 1000;
    // Every message the throttler paced during the burst: the replies, and anything else sent to a
    // chat; typing statuses go out beside that queue.
    const paced = Object.entries(burst.calls)
      .filter(([key]) => /^(send(?!ChatAction)|edit|delete)\w* 200$/.test(key))
      .reduce((n, [, c]) => n + c, 0);
    const typing = burst.calls['sendChatAction 200'] ?? 0;
    const notPhotos = replied.filter((a) => a.method !== 'sendPhoto').length;
    const missing = unanswered(burst).length + unanswered({ answered: alone, calls: {} }).length;

    const rows: Row[] = [
      {
        metric: `5. burst via Telegram: upstream requests / minimum (${count} cmds, ${BURST_ENTITIES} entities, ${count} private chats)`,
        measured: `${counter.total} / ${minimum} = ${ratio.toFixed(2)}`,
        target: '1.00',
        pass: counter.total === minimum,
      },
      {
        metric: '5. Telegram: update to first reply, a command alone on cold caches, p50 / max',
        measured: `${fmtMs(aloneMs.p50)} / ${fmtMs(aloneMs.max)} (${aloneMs.n} commands)`,
        target: '— (diagnostic)',
        pass: null,
      },
      {
        metric: `5. burst via Telegram: update to first reply p50 / p95 / max (long poll took them: p95 ${fmtMs(taken.p95)})`,
        measured: `${fmtMs(latency.p50)} / ${fmtMs(latency.p95)} / ${fmtMs(latency.max)}`,
        target: '— (diagnostic)',
        pass: replied.length === count ? null : false,
      },
      {
        metric: `5. burst via Telegram: replies a second, first command to last reply (bound: the throttler, ${MESSAGES_PER_SECOND} messages/s overall)`,
        measured:
          `${replied.length} in ${seconds.toFixed(1)} s = ${(replied.length / seconds).toFixed(1)}/s ` +
          `(${paced} messages sent; typing statuses: ${typing})`,
        target: '— (diagnostic)',
        pass: null,
      },
    ];
    const notes: string[] = [];
    if (missing) notes.push(`${missing} commands got no reply before the deadline`);
    if (notPhotos) notes.push(`${notPhotos} first replies were not a card's photo`);
    return {
      rows,
      notes,
      details: {
        commands: count,
        entities: iso.names.length,
        privateChats: count,
        minimumRequests: minimum,
        upstreamRequests: counter.total,
        ratio: round(ratio, 3),
        excess: excess(counter, iso.minimum),
        updateToFirstReplyMs: latency,
        updateToTakenMs: taken,
        aloneUpdateToFirstReplyMs: aloneMs,
        seconds: round(seconds),
        repliesPerSecond: round(replied.length / seconds),
        pacedSends: paced,
        typingActions: typing,
        calls: burst.calls,
        unanswered: unanswered(burst)
          .map((a) => a.text)
          .slice(0, 20),
        notPhotoFirstReplies: notPhotos,
      },
    };
  } finally {
    await handle?.stop();
    await db.close();
    await fake.close();
    await core.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
