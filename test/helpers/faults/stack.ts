import { Agent } from 'node:http';
import { Writable } from 'node:stream';
import { Api } from 'grammy';
import type { User } from 'grammy/types';
import { registerDiscordCommands, startDiscord, type DiscordHandle } from '../../../adapters/discord/index.js';
import { startSlack, type SlackAdapter } from '../../../adapters/slack/index.js';
import { telegram, type TelegramHandle } from '../../../adapters/telegram/index.js';
import type { CacheOptions } from '../../../src/api/cache/cached-source.js';
import { TTL_MS } from '../../../src/api/cache/ttl.js';
import type { DataMethod } from '../../../src/api/source.js';
import type { Caller } from '../../../commands/kit/context.js';
import type { Core } from '../../../commands/core/core.js';
import { Health, type HealthReport } from '../../../src/ops/health.js';
import { createMetrics } from '../../../src/ops/metrics.js';
import { operationalRoutes, startRouteServer } from '../../../src/http/routes.js';
import { createDigests, type Digests } from '../../../src/digest/index.js';
import { createLogger } from '../../../src/log.js';
import type { Simulator } from '../../../src/sim/server.js';
import { createPostgresDatabase } from '../digest/helpers.js';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { startFakeSlack, type FakeSlack } from '../../fakes/slack/index.js';
import { startFakeTelegram, type FakeTelegram } from '../../fakes/telegram/index.js';
import { demoCore } from '../core.js';

export type SourceName = 'rest' | 'mcp';

/**
 * Short enough that a timing-out upstream costs a phase well under a second, long enough that a
 * healthy in-process simulator answers every call in time on a loaded two-core machine.
 */
export const UPSTREAM_TIMEOUT_MS = 1_000;

/** Long enough to count as a circuit that stays open between two calls, short enough to wait out after every fault. */
export const BREAKER_COOLDOWN_MS = 150;

export const SIGNING_SECRET = 'fault-matrix-signing-secret-51c2e9';
export const GUILD_ID = '1100000000000000077';

/**
 * Every cached value expires at once, so a warmed cache is "warm but expired" immediately: the next
 * call goes upstream, and only stale-if-error can still answer.
 */
const EXPIRED_AT_ONCE = Object.fromEntries(Object.keys(TTL_MS).map((m) => [m, 1])) as Record<DataMethod, number>;

/** How long a value served stale is served again before the upstream is asked; short, so recovery is prompt. */
export const STALE_RETRY_MS = 50;

export const CACHE_OPTIONS: CacheOptions = {
  ttl: EXPIRED_AT_ONCE,
  staleRetryMs: STALE_RETRY_MS,
};

/** Slack channels that hold a digest each: `digest list` and `digest preview` post to the channel they were asked in. */
export const SLACK_DIGEST_LIST_CHANNEL = 'CDIGESTLST';
export const SLACK_DIGEST_PREVIEW_CHANNEL = 'CDIGESTPRV';

/** How a person asks polbot in Telegram: typing `/pol …`, pressing a button on a card, picking a candidate. */
export const TELEGRAM_WAYS = ['typed', 'button', 'choice'] as const;
export type TelegramWay = (typeof TELEGRAM_WAYS)[number];

/** A Telegram private chat that holds a digest (the person's id is the chat's). */
export interface TelegramDigestChat {
  user: User;
  id: number;
}

export interface FaultStack {
  source: SourceName;
  core: Core;
  sim: Simulator;
  health: Health;
  /** `GET /healthz` from the real route server. */
  healthz(): Promise<{ status: number; body: HealthReport }>;
  slackFake: FakeSlack;
  slack: SlackAdapter;
  slackEndpoint: string;
  discordFake: FakeDiscord;
  discord: DiscordHandle;
  discordChannel: string;
  telegramFake: FakeTelegram;
  telegram: TelegramHandle;
  /**
   * The Bot API as polbot's own token reaches it, outside the adapter and its pacing: how a test
   * puts one of polbot's messages, with the button a cell presses, in a person's chat.
   */
  telegramApi: Api;
  digests: Digests;
  digestIds: { slackList: number; slackPreview: number; discord: number };
  /**
   * Private chats with a digest each, for `digest list` and `digest preview` (a digest belongs to
   * its chat): one per way in, since polbot sends at most one message a second into a chat.
   */
  telegramDigests: Record<'list' | 'preview', Record<TelegramWay, TelegramDigestChat>>;
  /** Error-level log lines of the adapters and the core: a rejected core call or a failed interaction shows here. */
  errorLines: string[];
  close(): Promise<void>;
}

function memoryLog(errorLines: string[]) {
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      const line = chunk.toString();
      // pino level 50 = error, 60 = fatal.
      if (/"level":(50|60)/.test(line)) errorLines.push(line);
      done();
    },
  });
  return createLogger({ level: 'warn', destination });
}

export const slackCaller = (channelId: string): Caller => ({ platform: 'slack', userId: 'U0FAULTS01', channelId, canManageDigests: true });

async function addDigest(core: Core, caller: Caller): Promise<number> {
  const { reply } = await core.run('digest add aave, kraken daily at 09:00 tz UTC', caller);
  const id = reply.kind === 'text' ? /^Digest #(\d+) added$/.exec(reply.title ?? '')?.[1] : undefined;
  if (!id) throw new Error(`digest setup failed: ${JSON.stringify(reply).slice(0, 300)}`);
  return Number(id);
}

/**
 * Everything `polbot start` runs with every adapter configured, wired as app/bot.ts wires it, on
 * one demo-mode core: its simulator, the operational routes, Slack (HTTP mode) against the fake
 * Slack, Discord against the fake Discord, Telegram (long polling) against the fake Bot API, and
 * the digest store (a database of its own on the suite's PostgreSQL: the embedded PGlite takes ten
 * seconds to start, PostgreSQL a fraction of one), which Telegram's own tables share.
 */
export async function startFaultStack(source: SourceName): Promise<FaultStack> {
  const errorLines: string[] = [];
  const log = memoryLog(errorLines);
  const metrics = createMetrics();
  const core = await demoCore(
    { POL_SOURCE: source, POL_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS), RATE_LIMIT_PER_USER: '0' },
    { log, metrics, cache: CACHE_OPTIONS, breaker: { cooldownMs: BREAKER_COOLDOWN_MS } },
  );
  const sim = core.upstream.sim!;
  const stoppers: (() => Promise<unknown>)[] = [() => core.close()];
  const stopAll = async () => {
    for (const stop of stoppers) await stop().catch(() => undefined);
  };
  try {
    const health = new Health(core.upstream.source, { checkIntervalMs: 0 });
    const database = await createPostgresDatabase();
    stoppers.unshift(() => database.drop());
    // `digest add` succeeds in many cells of the matrix, in the same few channels; the per-channel
    // limit is not what the matrix is about (test/integration/digest/commands.test.ts checks it).
    const digests = await createDigests({
      config: { databaseUrl: database.url, dataDir: '' },
      ctx: core.ctx,
      deliverers: [],
      log,
      limits: { maxPerChannel: 1_000 },
    });
    stoppers.unshift(() => digests.stop());
    core.ctx.digests = digests.service;

    const routes = await startRouteServer(operationalRoutes(health, metrics), 0, '127.0.0.1');
    stoppers.unshift(() => routes.close());

    const slackFake = await startFakeSlack();
    stoppers.unshift(() => slackFake.close());
    const slack = await startSlack({
      core,
      slack: { botToken: slackFake.botToken, apiUrl: slackFake.url, signingSecret: SIGNING_SECRET },
      http: { host: '127.0.0.1', port: 0 },
      log,
    });
    stoppers.unshift(() => slack.stop());

    const discordFake = await startFakeDiscord({ guildIds: [GUILD_ID], heartbeatIntervalMs: 1_000 });
    stoppers.unshift(() => discordFake.close());
    const settings = { token: discordFake.token, applicationId: discordFake.applicationId, apiUrl: discordFake.apiUrl, guildId: GUILD_ID };
    await registerDiscordCommands({ discord: settings, log });
    const discord = await startDiscord({ core, discord: settings, log, readyTimeoutMs: 15_000 });
    stoppers.unshift(() => discord.stop());
    const discordChannel = discordFake.channelIds[GUILD_ID]!;

    const telegramFake = await startFakeTelegram();
    stoppers.unshift(() => telegramFake.close());
    const telegramHandle = await telegram({
      core,
      telegram: { token: telegramFake.token, apiUrl: telegramFake.url },
      db: digests.db,
      log,
    }).start();
    stoppers.unshift(() => telegramHandle.stop());
    const telegramDigest = async (): Promise<TelegramDigestChat> => {
      const user = telegramFake.addUser({ first_name: 'Dee' });
      const chat = String(user.id);
      return { user, id: await addDigest(core, { platform: 'telegram', userId: chat, channelId: chat, canManageDigests: true }) };
    };
    const telegramDigestChats = async () =>
      Object.fromEntries(await Promise.all(TELEGRAM_WAYS.map(async (way) => [way, await telegramDigest()]))) as Record<
        TelegramWay,
        TelegramDigestChat
      >;

    const digestIds = {
      slackList: await addDigest(core, slackCaller(SLACK_DIGEST_LIST_CHANNEL)),
      slackPreview: await addDigest(core, slackCaller(SLACK_DIGEST_PREVIEW_CHANNEL)),
      discord: await addDigest(core, {
        platform: 'discord',
        userId: discordFake.defaultUser.id,
        channelId: discordChannel,
        canManageDigests: true,
      }),
    };
    const telegramDigests = { list: await telegramDigestChats(), preview: await telegramDigestChats() };

    return {
      source,
      core,
      sim,
      health,
      async healthz() {
        const res = await fetch(`http://127.0.0.1:${routes.port}/healthz`);
        return { status: res.status, body: (await res.json()) as HealthReport };
      },
      slackFake,
      slack,
      slackEndpoint: `http://127.0.0.1:${slack.port}/slack/events`,
      discordFake,
      discord,
      discordChannel,
      telegramFake,
      telegram: telegramHandle,
      // A connection per call, outside the pool grammY shares with the adapter: a run once lost a
      // call here to a network error on a pooled connection, which a fresh one cannot meet.
      telegramApi: new Api(telegramFake.token, {
        apiRoot: telegramFake.url,
        baseFetchConfig: { agent: new Agent({ keepAlive: false }) },
      }),
      digests,
      digestIds,
      telegramDigests,
      errorLines,
      close: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
