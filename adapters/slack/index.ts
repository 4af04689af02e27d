import { webApi } from '@slack/bolt';
import { LRUCache } from 'lru-cache';
import { carriesKey } from '../../src/delivery/port.js';
import { startRouteServer, type HttpRoute } from '../../src/http/routes.js';
import type { HttpConfig } from '../../src/http/routes.js';
import type { SlackConfig } from './config.js';
import type { Logger } from '../../src/log.js';
import type { Reply } from '../../src/reply/model.js';
import type { WorkspaceRef } from '../../src/workspace.js';
import {
  buildApp,
  checkBotToken,
  DEFAULT_RETRY,
  EVENTS_PATH,
  type BotIdentity,
  type CommandRunner,
  type SlackMode,
  type WorkspaceEvents,
} from './app.js';
import { boltLevelFor, boltLogger } from './bolt-logger.js';
import { postAsOneMessage, updateInChannel, slackErrorCode, SlackDeliveryError, type Posted } from './delivery.js';
import type { SlackOAuth } from './oauth/index.js';
import type { RefusalReason } from './ingress/protocol.js';

export { renderReply, type SlackMessage } from './blocks.js';
export { SlackDeliveryError, type Posted } from './delivery.js';
export { slackDeliverer } from './deliverer.js';
export { slackRefusals } from './refusals.js';
export { CHECK_SHORTCUT_ID, EVENTS_PATH, DEFAULT_PROGRESS_MS, DEFAULT_RETRY, type CommandRunner, type WorkspaceEvents } from './app.js';
export { createSlackOAuth, INSTALL_PATH, REDIRECT_PATH, scopeOfInstallation, type SlackOAuth } from './oauth/index.js';

export interface StartSlackOptions {
  core: CommandRunner;
  slack: SlackConfig;
  http: HttpConfig;
  log: Logger;
  /** Extra HTTP routes on the same server, e.g. `GET /healthz` and `GET /metrics`. */
  customRoutes?: readonly HttpRoute[];
  /** How long an answer may take before "Looking up…" is shown. */
  progressMs?: number;
  /** @slack/web-api retry policy for answers to people (429s wait for Retry-After first); scheduled posts are never repeated. */
  retryConfig?: webApi.RetryOptions;
  /** `config.digestAdmins` (DIGEST_ADMINS): who may manage digests; empty lets everyone. */
  digestAdmins?: readonly string[];
  /** Many workspaces (SLACK_CLIENT_ID...): installations, and the install routes (already among `customRoutes`). */
  oauth?: SlackOAuth;
  /** What a workspace's removal does, and how repeated events are recognised. */
  workspaces?: WorkspaceEvents;
  /** HTTP mode: told of each request refused before it ran anything (forged, stale, replayed). */
  onRefused?: (reason: RefusalReason) => void;
}

export interface SlackAdapter {
  mode: 'http' | 'socket';
  /** The bound HTTP port: always in HTTP mode, in Socket Mode only when custom routes are served. */
  port?: number;
  /**
   * Posts any Reply into a channel as the bot, as one message with its chart inside (an image
   * block of a file uploaded unshared), e.g. for scheduled digests and alerts. Throws
   * SlackDeliveryError carrying Slack's error code (`not_in_channel`...). Sent once, never
   * repeated by the client: a failure (a timeout above all) may still have landed.
   */
  postReply(channelId: string, reply: Reply, opts?: { threadTs?: string; workspace?: WorkspaceRef }): Promise<Posted>;
  /** Redraws a message the bot posted (its `ts`), in place; the chart it shows stays. */
  updateReply(channelId: string, ts: string, reply: Reply, workspace?: WorkspaceRef): Promise<void>;
  /**
   * Whether one of the bot's recent messages in the channel carries `needle` (a digest's delivery
   * key), so a digest part that reached Slack before a crash is not posted twice. Needs `channels:history`.
   */
  hasRecentMessage(channelId: string, needle: string, workspace?: WorkspaceRef): Promise<boolean>;
  /** The same search, saying where the message is: the `ts` of the newest one carrying `needle` (an alert's key), or null. */
  findRecentMessage(channelId: string, needle: string, workspace?: WorkspaceRef): Promise<string | null>;
  /** Whether one of the bot's replies in the thread of its message `ts` carries `needle` (an escalation's key). */
  findThreadReply(channelId: string, ts: string, needle: string, workspace?: WorkspaceRef): Promise<boolean>;
  /** Stops taking events, lets answers under way finish (bounded), then closes the servers. */
  stop(): Promise<void>;
}

/** How long stop() waits for answers already under way. */
const DRAIN_MS = 10_000;

/** The channel's messages searched for a delivery key: Slack's default page, newest first. */
const HISTORY_LIMIT = 100;

/** A thread's replies searched for a delivery key: Slack's most in one page, oldest first. */
const THREAD_LIMIT = 1_000;

/** A scheduled post that Slack has not answered by then fails, and is retried by its caller. */
const DELIVERY_TIMEOUT_MS = 15_000;

function modeOf(slack: SlackConfig): SlackMode {
  // The documented contract: Socket Mode whenever an app-level token is set.
  if (slack.appToken) return { kind: 'socket', appToken: slack.appToken };
  if (slack.signingSecret) return { kind: 'http', signingSecret: slack.signingSecret };
  throw new Error('Slack: set SLACK_SIGNING_SECRET (HTTP mode) or SLACK_APP_TOKEN (Socket Mode)');
}

/** @slack/web-api joins method names onto the base, so it has to end with a slash. */
function apiBase(url: string | undefined): string | undefined {
  return url === undefined ? undefined : url.endsWith('/') ? url : `${url}/`;
}

/** The clients and identity that post as polbot in one workspace. */
interface WorkspaceClients {
  /** Scheduled posts: never repeats a request by itself (see below). */
  delivery: webApi.WebClient;
  /** Updates and history searches, which are safe to repeat. */
  calls: webApi.WebClient;
  identity: BotIdentity;
}

export async function startSlack(options: StartSlackOptions): Promise<SlackAdapter> {
  const { slack, http, log, oauth } = options;
  const mode = modeOf(slack);
  const apiUrl = apiBase(slack.apiUrl);
  const clientLog = { logger: boltLogger(log), logLevel: boltLevelFor(log.level) };
  // Scheduled posts (digests, alerts) never repeat a request by themselves. The Web API client's
  // retries would post again after a timeout or a 5xx even when Slack had taken the message and
  // only the answer got lost; their callers retry instead, searching the channel for the
  // message's key first. A 429 comes back at once and postToChannel sends again after
  // Retry-After: Slack took nothing.
  const clientsOf = (token: string, identity: BotIdentity): WorkspaceClients => ({
    delivery: new webApi.WebClient(token, {
      ...(apiUrl ? { slackApiUrl: apiUrl } : {}),
      retryConfig: { retries: 0 },
      timeout: DELIVERY_TIMEOUT_MS,
      rejectRateLimitedCalls: true,
      ...clientLog,
    }),
    calls: new webApi.WebClient(token, {
      ...(apiUrl ? { slackApiUrl: apiUrl } : {}),
      retryConfig: { ...DEFAULT_RETRY },
      timeout: DELIVERY_TIMEOUT_MS,
      rejectRateLimitedCalls: false,
      ...clientLog,
    }),
    identity,
  });

  let single: { botToken: string; identity: BotIdentity } | undefined;
  if (!oauth) {
    const botToken = slack.botToken;
    if (!botToken)
      throw new Error('Slack: set SLACK_BOT_TOKEN, or SLACK_CLIENT_ID with SLACK_CLIENT_SECRET and SLACK_STATE_SECRET for OAuth');
    // Checked before anything listens, so a bad token fails start-up instead of the first command.
    try {
      single = { botToken, identity: await checkBotToken(botToken, apiUrl, log) };
    } catch (err) {
      throw new Error(
        `Slack: the bot token check (auth.test) failed: ${slackErrorCode(err) ?? (err instanceof Error && err.message.startsWith('auth.test') ? err.message : 'Slack unreachable')}`,
      );
    }
  }
  const singleClients = single ? clientsOf(single.botToken, single.identity) : undefined;
  // Installed workspaces' clients, by token: a reinstall's new token gets new clients, and the
  // cache forgets idle ones. The token is read from the store each time, so a removal takes effect at once.
  const installedClients = new LRUCache<string, WorkspaceClients>({ max: 1_000, ttl: 30 * 60_000 });
  const clientsFor = async (workspace: WorkspaceRef | undefined, channelId: string): Promise<WorkspaceClients> => {
    if (singleClients) return singleClients;
    const installation =
      workspace?.teamId || workspace?.enterpriseId
        ? await oauth!.store.find({ teamId: workspace.teamId ?? undefined, enterpriseId: workspace.enterpriseId ?? undefined })
        : null;
    const bot = installation?.bot;
    // Said as Slack says it of a token that is gone, so deliverers treat it as they would Slack's answer.
    if (!bot?.token || !bot.id || !bot.userId) throw new SlackDeliveryError('account_inactive', channelId);
    const cached = installedClients.get(bot.token);
    if (cached) return cached;
    const clients = clientsOf(bot.token, { botId: bot.id, botUserId: bot.userId });
    installedClients.set(bot.token, clients);
    return clients;
  };

  const { app, ingress, drain } = buildApp({
    core: options.core,
    log,
    ...(single ? { single } : { authorize: oauth!.provider.authorize.bind(oauth!.provider) }),
    mode,
    ...(apiUrl ? { apiUrl } : {}),
    ...(options.customRoutes ? { customRoutes: options.customRoutes } : {}),
    ...(options.progressMs !== undefined ? { progressMs: options.progressMs } : {}),
    ...(options.retryConfig ? { retryConfig: options.retryConfig } : {}),
    ...(options.digestAdmins ? { digestAdmins: options.digestAdmins } : {}),
    ...(options.workspaces ? { workspaces: options.workspaces } : {}),
    ...(options.onRefused ? { onRefused: options.onRefused } : {}),
    ...(slack.unfurlDomains?.length ? { unfurlDomains: slack.unfurlDomains } : {}),
  });

  await app.init();

  let port: number | undefined;
  let routesServer: Awaited<ReturnType<typeof startRouteServer>> | undefined;
  if (ingress) {
    // What app.start() does for a receiver, with the arguments typed.
    ({ port } = await ingress.start(http.port, http.host));
    log.info(
      { mode: 'http', host: http.host, port, path: EVENTS_PATH, ...(oauth ? { workspaces: await oauth.store.count() } : {}) },
      oauth ? 'slack: listening for events of every installed workspace' : 'slack: listening for events',
    );
  } else {
    try {
      await app.start();
    } catch (err) {
      await app.stop().catch(() => undefined);
      throw new Error(`Slack: Socket Mode could not connect: ${slackErrorCode(err) ?? 'Slack unreachable'}`);
    }
    // Bolt's fallback server for Socket Mode listens on every interface, with no way to choose.
    if (options.customRoutes?.length) {
      routesServer = await startRouteServer(options.customRoutes, http.port, http.host);
      port = routesServer.port;
    }
    log.info({ mode: 'socket', ...(port !== undefined ? { port } : {}) }, 'slack: connected in Socket Mode');
  }

  /** The bot's own messages only: someone quoting a key in the channel is not a delivery. */
  const ours = (identity: BotIdentity) => (m: { bot_id?: string; user?: string }) =>
    m.bot_id === identity.botId || m.user === identity.botUserId;
  const findRecentMessage = async (channelId: string, needle: string, workspace?: WorkspaceRef): Promise<string | null> => {
    const { calls, identity } = await clientsFor(workspace, channelId);
    const res = await calls.conversations.history({ channel: channelId, limit: HISTORY_LIMIT });
    return (res.messages ?? []).find((m) => ours(identity)(m) && carriesKey(JSON.stringify(m), needle))?.ts ?? null;
  };
  const findThreadReply = async (channelId: string, ts: string, needle: string, workspace?: WorkspaceRef): Promise<boolean> => {
    const { calls, identity } = await clientsFor(workspace, channelId);
    const res = await calls.conversations.replies({ channel: channelId, ts, limit: THREAD_LIMIT });
    return (res.messages ?? []).some((m) => m.ts !== ts && ours(identity)(m) && carriesKey(JSON.stringify(m), needle));
  };

  let stopping: Promise<void> | undefined;
  return {
    mode: mode.kind,
    ...(port !== undefined ? { port } : {}),
    postReply: async (channelId, reply, opts) =>
      postAsOneMessage((await clientsFor(opts?.workspace, channelId)).delivery, log, channelId, reply, opts?.threadTs),
    updateReply: async (channelId, ts, reply, workspace) =>
      updateInChannel((await clientsFor(workspace, channelId)).calls, log, channelId, ts, reply),
    findRecentMessage,
    findThreadReply,
    hasRecentMessage: async (channelId, needle, workspace) => (await findRecentMessage(channelId, needle, workspace)) !== null,
    stop() {
      stopping ??= (async () => {
        await app.stop().catch((err: unknown) => log.warn({ err }, 'slack: stopping the receiver failed'));
        await drain(DRAIN_MS);
        if (routesServer) await routesServer.close();
      })();
      return stopping;
    },
  };
}
