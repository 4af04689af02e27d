import {
  App,
  ErrorCode,
  SocketModeReceiver,
  webApi,
  type Authorize,
  type BlockAction,
  type ButtonAction,
  type ExternalSelectAction,
  type MessageShortcut,
  type StaticSelectAction,
} from '@slack/bolt';
import { LRUCache } from 'lru-cache';
import type { Caller, RiskScore, RunResult } from '../../commands/core/index.js';
import type { HttpRoute } from '../../src/http/routes.js';
import type { Action } from '../../src/reply/model.js';
import { slackGroups } from './groups.js';
import { slackCanManageDigests } from './permissions.js';
import type { Logger } from '../../src/log.js';
import type { InstallScope } from '../../src/workspace.js';
import { within } from '../../src/time/within.js';
import { typedText } from '../../src/reply/inline.js';
import { ACTION_ID, CHOICE_ACTION_PREFIX, LOOKUP_BLOCK_PREFIX } from './blocks.js';
import { flat, plain } from './escape.js';
import { registerConversation } from './conversation.js';
import { registerHome } from './home/register.js';
import { registerUnfurls } from './unfurl.js';
import { registerWorkflowStep } from './workflow.js';
import { clip, LIMITS } from './limits.js';
import { boltLevelFor, boltLogger } from './bolt-logger.js';
import { deliver } from './delivery.js';
import { acknowledgedOnArrival, type RefusalReason } from './ingress/protocol.js';
import { IngressReceiver } from './ingress/receiver.js';
import { lookingUp, somethingWentWrong } from './notices.js';
import { onePerTurn } from './one-per-turn.js';

/** What the adapter needs from the core: text in (with who asked, where), Reply out. */
export interface CommandRunner {
  run(text: string, caller?: Caller): Promise<RunResult>;
  /** What a person wrote in their own words (a mention, a DM); `run` where a core has no such thing. */
  converse?(text: string, caller?: Caller): Promise<RunResult>;
  /** One entity's risk score as values, for the Workflow Builder step; without it the step is not offered. */
  score?(name: string): Promise<RiskScore>;
  /** A menu's options looked up as the person types (see `Menu.search`); without it such menus offer nothing. */
  lookup?(search: string, typed: string, limit: number): Promise<Action[]>;
}

export const EVENTS_PATH = '/slack/events';
/** The manifest's message shortcut, "Check with polbot". */
export const CHECK_SHORTCUT_ID = 'pol_check_message';

/**
 * A slash command is acknowledged at once, with nothing: Slack allows 3 seconds, but a burst of
 * commands queues on one event loop, and an acknowledgement that waited for its answer waits for
 * everyone else's too. Answers that take longer than this show "Looking up…" meanwhile.
 */
export const DEFAULT_PROGRESS_MS = 1_000;

/**
 * 429s wait for Retry-After inside @slack/web-api, then this policy adds a short backoff. Bolt's
 * default (ten retries over about thirty minutes) suits a batch job, not a person waiting.
 */
export const DEFAULT_RETRY: webApi.RetryOptions = { retries: 3, factor: 2, minTimeout: 250, maxTimeout: 4_000, randomize: true };

/** A stuck Slack request gives up rather than holding the answer forever. */
const REQUEST_TIMEOUT_MS = 15_000;

/** A second click on the same button by the same person within this window is a double click. */
const DOUBLE_CLICK_MS = 10_000;
/** Slack shows "no results" if a lookup is not answered within 3 s; what is not ready by then is left out. */
const LOOKUP_BUDGET_MS = 2_500;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export type SlackMode = { kind: 'http'; signingSecret: string } | { kind: 'socket'; appToken: string };

/** What the adapter does when a workspace removes polbot, or a Slack event arrives again. */
export interface WorkspaceEvents {
  /** `app_uninstalled`, or `tokens_revoked` naming the bot: forget the tokens, pause what the workspace had. */
  removed(scope: InstallScope): Promise<void>;
  /** True the first time a key (an event id, a trigger id) is seen across replicas, false for Slack's retries, duplicates and replays. */
  firstDelivery?(key: string): Promise<boolean>;
}

export interface BuildAppOptions {
  core: CommandRunner;
  log: Logger;
  /** One workspace: its bot token, and who the token belongs to (`checkBotToken`). */
  single?: { botToken: string; identity: BotIdentity };
  /** Many workspaces installed through OAuth: each request's token comes from its installation. */
  authorize?: Authorize<boolean>;
  workspaces?: WorkspaceEvents;
  mode: SlackMode;
  /** Web API base, ending with `/`. */
  apiUrl?: string;
  /** Served next to the events endpoint in HTTP mode. */
  customRoutes?: readonly HttpRoute[];
  /** How long an answer may take before "Looking up…" is shown. */
  progressMs?: number;
  retryConfig?: webApi.RetryOptions;
  /** DIGEST_ADMINS: Slack user ids who may manage digests; empty lets everyone. */
  digestAdmins?: readonly string[];
  /** HTTP mode: told of each request refused before it ran anything (forged, stale, replayed). */
  onRefused?: (reason: RefusalReason) => void;
  /** POLBOT_UNFURL_DOMAINS: links to these hosts are unfurled with a compact card. */
  unfurlDomains?: readonly string[];
}

export interface BotIdentity {
  botId: string;
  botUserId: string;
}

/**
 * auth.test with the token in the Authorization header only. Bolt's own check passes it as an
 * argument, which @slack/web-api also copies into the form body, where request logs on the way
 * are more likely to keep it.
 */
export async function checkBotToken(botToken: string, apiUrl: string | undefined, log: Logger): Promise<BotIdentity> {
  const client = new webApi.WebClient(botToken, {
    ...webClientOptions(apiUrl),
    logger: boltLogger(log),
    logLevel: boltLevelFor(log.level),
  });
  const res = await client.auth.test();
  if (!res.bot_id || !res.user_id) throw new Error('auth.test did not name a bot: is SLACK_BOT_TOKEN a bot token (xoxb-)?');
  return { botId: res.bot_id, botUserId: res.user_id };
}

/** Every Web API client's options; a fresh object each time, since Bolt and the Socket Mode client write into them. */
function webClientOptions(apiUrl: string | undefined, retry: webApi.RetryOptions = DEFAULT_RETRY): webApi.WebClientOptions {
  return {
    ...(apiUrl ? { slackApiUrl: apiUrl } : {}),
    retryConfig: { ...retry },
    timeout: REQUEST_TIMEOUT_MS,
    rejectRateLimitedCalls: false,
  };
}

export interface BuiltApp {
  app: App;
  /** HTTP mode's receiver: `start(port, host)` it after `app.init()`. */
  ingress?: IngressReceiver;
  /** Resolves when every interaction under way has been answered. */
  drain(timeoutMs: number): Promise<void>;
}

const FAILED: RunResult = {
  command: 'invalid',
  reply: { kind: 'error', message: 'Something went wrong on our side. It has been logged.', hint: 'Please try again.' },
};

export function buildApp(options: BuildAppOptions): BuiltApp {
  const { core, log, mode } = options;
  const progressMs = options.progressMs ?? DEFAULT_PROGRESS_MS;
  const logger = boltLogger(log);
  const logLevel = boltLevelFor(log.level);
  const slackApiUrl = options.apiUrl;

  const receiver =
    mode.kind === 'socket'
      ? new SocketModeReceiver({
          appToken: mode.appToken,
          logger,
          logLevel,
          installerOptions: { clientOptions: { ...(slackApiUrl ? { slackApiUrl } : {}) } },
        })
      : new IngressReceiver({
          signingSecret: mode.signingSecret,
          endpoint: EVENTS_PATH,
          logger,
          logLevel,
          log,
          ...(options.customRoutes?.length ? { routes: options.customRoutes } : {}),
          ...(options.onRefused ? { onRefused: options.onRefused } : {}),
        });

  const { single } = options;
  if (!single === !options.authorize) throw new Error('Slack: give either one bot token or an OAuth authorize function');
  const app = new App({
    ...(single
      ? { token: single.botToken, botId: single.identity.botId, botUserId: single.identity.botUserId }
      : { authorize: options.authorize! }),
    receiver,
    logger,
    logLevel,
    clientOptions: webClientOptions(slackApiUrl, options.retryConfig),
    // Errors reach app.error with the request's body, so a workspace without an installation can be told.
    extendedErrorHandler: true,
    tokenVerificationEnabled: false,
    // Nothing here keeps conversation state; Bolt's store would be one more lookup per request.
    convoStore: false,
    deferInitialization: true,
  });

  const inflight = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>): Promise<T> => {
    inflight.add(work);
    void work.finally(() => inflight.delete(work)).catch(() => undefined);
    return work;
  };
  // Answers are rendered and sent one per turn of the event loop, so that requests arriving during a
  // burst are read and acknowledged between them; shared with the deferred processing of requests.
  const myTurn = onePerTurn();
  acknowledgeFirst(app, track, myTurn);

  const digestAdmins = options.digestAdmins ?? [];
  const callerOf = (
    userId: string,
    channelId: string,
    who: { userName?: string | undefined; teamId?: string | undefined; enterpriseId?: string | null | undefined } = {},
  ): Caller => ({
    platform: 'slack',
    userId,
    ...(who.userName ? { userName: who.userName } : {}),
    channelId,
    ...(who.teamId ? { workspaceId: who.teamId } : {}),
    ...(who.enterpriseId ? { enterpriseId: who.enterpriseId } : {}),
    canManageDigests: slackCanManageDigests(digestAdmins, userId),
    groups: slackGroups,
  });
  // Home runs commands as the listeners below do; `run` is read when a Home event arrives, by then defined.
  const home = registerHome(app, {
    core,
    log,
    digestAdmins,
    track,
    progressMs,
    run: (text, caller) => run(text, caller),
    callerOf,
    firstClick: (key) => firstClick(key),
  });
  const run = (text: string, caller: Caller): Promise<RunResult> =>
    core
      .run(text, caller)
      .then(home.noted(caller))
      .catch((err: unknown) => {
        log.error({ err }, 'slack: command core failed');
        return FAILED;
      });

  app.command(/^\/.+/, ({ command, ack, respond, client, context }) =>
    track(
      (async () => {
        const started = performance.now();
        // Already acknowledged (acknowledgeFirst); kept so the listener stands on its own.
        await ack();
        try {
          const work = run(
            command.text,
            callerOf(command.user_id, command.channel_id, {
              userName: command.user_name,
              teamId: command.team_id,
              enterpriseId: command.enterprise_id,
            }),
          );
          let result = await within(work, progressMs);
          let progress = false;
          if (!result) {
            progress = await respond({ response_type: 'ephemeral', ...lookingUp(command.text) }).then(
              () => true,
              () => false,
            );
            result = await work;
          }
          await myTurn();
          const target = {
            client,
            respond,
            channel: command.channel_id,
            supersedes: progress,
            userId: command.user_id,
            ...(context.botUserId ? { botUserId: context.botUserId } : {}),
          };
          logAnswer(log, result, started, await deliver(target, result, log));
        } catch (err) {
          log.error({ err }, 'slack: command failed after its acknowledgement');
          await respond({ response_type: 'ephemeral', replace_original: false, ...somethingWentWrong() }).catch(() => undefined);
        }
      })(),
    ),
  );

  registerConversation(app, {
    converse: (text, caller) =>
      (core.converse ? core.converse(text, caller) : core.run(text, caller)).then(home.noted(caller)).catch((err: unknown) => {
        log.error({ err }, 'slack: command core failed');
        return FAILED;
      }),
    callerOf: (userId, channelId, who) => callerOf(userId, channelId, who),
    mostAsked: (teamId, limit) => home.mostAsked(teamId, limit),
    log,
    track,
    myTurn,
  });

  if (core.score) registerWorkflowStep(app, { score: (name) => core.score!(name), log });

  if (options.unfurlDomains?.length)
    registerUnfurls(app, {
      domains: options.unfurlDomains,
      run: (text, caller) => run(text, caller),
      callerOf: (userId, channelId, who) => callerOf(userId, channelId, who),
      log,
      track,
    });

  // Bounded in size and time: a flood of clicks cannot grow it, and an entry lapses on its own.
  const recentClicks = new LRUCache<string, true>({ max: 10_000, ttl: DOUBLE_CLICK_MS });
  const firstClick = (key: string): boolean => {
    if (recentClicks.has(key)) return false;
    recentClicks.set(key, true);
    return true;
  };

  // A menu looked up as the person types: Slack asks with each keystroke and waits up to 3 s.
  app.options<'block_suggestion'>({ block_id: new RegExp(`^${escapeRegExp(LOOKUP_BLOCK_PREFIX)}`) }, async ({ ack, payload }) => {
    const search = payload.block_id.slice(LOOKUP_BLOCK_PREFIX.length);
    const typed = String(payload.value ?? '').slice(0, 60);
    const found = core.lookup
      ? await within(
          core.lookup(search, typed, LIMITS.lookupOptions).catch((): Action[] => []),
          LOOKUP_BUDGET_MS,
        )
      : [];
    const options = (found ?? [])
      .map((a) => ({ text: { type: 'plain_text' as const, text: clip(plain(flat(a.label)), LIMITS.optionText) }, value: typedText(a.run) }))
      .filter((o) => o.value.length > 0 && o.value.length <= LIMITS.optionValue);
    await ack({ options });
  });

  app.action<BlockAction<ButtonAction | StaticSelectAction | ExternalSelectAction>>(
    ACTION_ID,
    ({ ack, action, body, respond, client, context }) =>
      track(
        (async () => {
          await ack();
          const started = performance.now();
          const messageTs = stringOr(body.container.message_ts) ?? body.message?.ts ?? '';
          // A button carries its command as its value; a menu as the value of the option picked.
          const value = action.type === 'button' ? action.value : action.selected_option?.value;
          if (!firstClick(`${body.user.id}:${messageTs}:${action.action_id}:${value ?? ''}`)) {
            log.debug({ actionId: action.action_id }, 'slack: repeated click ignored');
            return;
          }
          const command = typeof value === 'string' ? value.trim() : '';
          const channel = body.channel?.id ?? stringOr(body.container.channel_id);
          if (!command || !channel) {
            log.warn({ actionId: action.action_id }, 'slack: button without a command or channel');
            await respond({ response_type: 'ephemeral', replace_original: false, ...somethingWentWrong() }).catch(() => undefined);
            return;
          }
          const fromEphemeral = body.container.is_ephemeral === true;
          // Follow-ups on a message in the channel answer in that message's thread.
          const threadTs = fromEphemeral
            ? undefined
            : (stringOr(body.message?.thread_ts) ?? body.message?.ts ?? stringOr(body.container.message_ts));
          const work = run(
            command,
            callerOf(body.user.id, channel, {
              userName: body.user.name ?? body.user.username,
              teamId: body.team?.id ?? body.user.team_id,
              enterpriseId: body.enterprise?.id,
            }),
          );
          if (fromEphemeral && !(await within(work, progressMs))) {
            // The clicked choice turns into progress, so its other buttons cannot be clicked meanwhile.
            await respond({ replace_original: true, ...lookingUp(command) }).catch(() => undefined);
          }
          const result = await work;
          await myTurn();
          const placement = await deliver(
            {
              client,
              respond,
              channel,
              supersedes: fromEphemeral,
              userId: body.user.id,
              ...(threadTs ? { threadTs } : {}),
              ...(context.botUserId ? { botUserId: context.botUserId } : {}),
            },
            result,
            log,
          );
          logAnswer(
            log,
            result,
            started,
            placement,
            action.action_id.startsWith(CHOICE_ACTION_PREFIX) ? 'choice' : action.type === 'button' ? 'follow-up' : 'menu',
          );
        })(),
      ),
  );

  // "Check with polbot" on a message: the names it holds, answered to the person alone.
  app.shortcut<MessageShortcut>({ callback_id: CHECK_SHORTCUT_ID, type: 'message_action' }, ({ ack, shortcut, respond, client, context }) =>
    track(
      (async () => {
        await ack();
        const started = performance.now();
        const text = messageText(shortcut.message).slice(0, 4000);
        const result = await run(
          `check ${text.replace(/\s+/g, ' ').trim() || '-'}`,
          callerOf(shortcut.user.id, shortcut.channel.id, {
            userName: shortcut.user.name ?? shortcut.user.username,
            teamId: shortcut.team?.id,
            enterpriseId: shortcut.enterprise?.id,
          }),
        );
        await myTurn();
        const target = {
          client,
          respond,
          channel: shortcut.channel.id,
          supersedes: false,
          userId: shortcut.user.id,
          ...(context.botUserId ? { botUserId: context.botUserId } : {}),
        };
        logAnswer(log, result, started, await deliver(target, result, log), 'message shortcut');
      })(),
    ),
  );

  if (options.workspaces) {
    const { workspaces } = options;
    if (workspaces.firstDelivery)
      processOnce(app, workspaces.firstDelivery.bind(workspaces), log, options.onRefused && (() => options.onRefused!('replayed')));
    listenForRemoval(app, workspaces, log);
  }

  // Bolt's last overload is the extended handler (extendedErrorHandler: true above).
  const onError: Parameters<App['error']>[0] = async ({ error, body }) => {
    if (error.code === ErrorCode.AuthorizationError) {
      // No installation answers for this workspace: removed, or never finished. Said to the person
      // through the request's response_url, which needs no token.
      log.warn({ team: teamOf(body) }, 'slack: a request from a workspace polbot is not installed in');
      await notInstalled(body, log);
      return;
    }
    log.error({ err: error }, 'slack: unhandled error in a listener');
  };
  app.error(onError);

  return {
    app,
    ...(receiver instanceof IngressReceiver ? { ingress: receiver } : {}),
    async drain(timeoutMs) {
      if (!inflight.size) return;
      await within(Promise.allSettled([...inflight]), timeoutMs);
    },
  };
}

/**
 * Slash commands and button clicks are acknowledged as soon as the receiver has verified them;
 * Bolt's middleware and our listeners run later, with an `ack` that does nothing. In HTTP mode the
 * ingress thread has acknowledged them already (its `ack` here is a no-op); in Socket Mode this is
 * where it happens. Our listeners acknowledge with an empty body anyway, so nothing is lost.
 *
 * The deferred processing starts one event per turn of the event loop (`onePerTurn`), so a burst
 * of hundreds of events is interleaved with the answers under way rather than run in one block.
 */
function acknowledgeFirst(app: App, track: <T>(work: Promise<T>) => Promise<T>, myTurn: () => Promise<void>): void {
  const processEvent = app.processEvent.bind(app);
  const noAck = async () => undefined;
  app.processEvent = async (event) => {
    if (!acknowledgedOnArrival(event.body)) return processEvent(event);
    await event.ack();
    // Tracked from the acknowledgement on: a shutdown waits for it like for any answer under way.
    return track(
      (async () => {
        await myTurn();
        return processEvent({ ...event, ack: noAck });
      })(),
    );
  };
}

/** A message's words as people read them: its text, and the text of its blocks (a bot's card). */
function messageText(message: { text?: string; blocks?: unknown }): string {
  const parts: string[] = [message.text ?? ''];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (typeof o.text === 'string') parts.push(o.text);
      for (const [k, child] of Object.entries(o)) if (k !== 'text' || typeof child !== 'string') walk(child);
    }
  };
  walk(message.blocks);
  return parts.join('\n');
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function logAnswer(log: Logger, result: RunResult, started: number, via: string, trigger = 'slash command'): void {
  log.info(
    { trigger, command: result.command, kind: result.reply.kind, via, ms: Math.round(performance.now() - started) },
    'slack: answered',
  );
}

/** The workspace a request came from, for logs. */
function teamOf(body: unknown): string | undefined {
  const b = body as { team_id?: unknown; team?: { id?: unknown } } | undefined;
  return stringOr(b?.team_id) ?? stringOr(b?.team?.id);
}

const NOT_INSTALLED = {
  response_type: 'ephemeral',
  replace_original: false,
  text: 'polbot is not installed in this workspace (it may have been removed). Ask a workspace admin to add it again; digests and alerts the workspace had resume when it is back.',
};

/** Tells the person, through the request's response_url, that polbot is not installed here. */
async function notInstalled(body: unknown, log: Logger): Promise<void> {
  const url = stringOr((body as { response_url?: unknown } | undefined)?.response_url);
  if (!url) return;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(NOT_INSTALLED),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    if (!res.ok) log.warn({ status: res.status }, 'slack: could not say that polbot is not installed');
  } catch (err) {
    log.warn({ err }, 'slack: could not say that polbot is not installed');
  }
}

/**
 * Each event (by its `event_id`) and each command, click or shortcut (by its `trigger_id`, which
 * Slack makes unique per request) runs once across replicas. Slack's retries of an event are
 * dropped here; so is a captured command replayed to a replica other than the one that took it
 * (the ingress thread refuses a replay to the same replica before it is acknowledged).
 */
function processOnce(app: App, first: (key: string) => Promise<boolean>, log: Logger, onReplay: (() => void) | undefined): void {
  app.use(async ({ body, next }) => {
    const b = body as { event_id?: unknown; trigger_id?: unknown };
    const eventId = stringOr(b.event_id);
    const triggerId = stringOr(b.trigger_id);
    if (eventId && !(await first(eventId))) {
      log.info({ eventId }, 'slack: an event already processed arrived again; ignored');
      return;
    }
    if (!eventId && triggerId && !(await first(`trigger:${triggerId}`))) {
      log.warn('slack: a request already taken arrived again (a replay); not run');
      onReplay?.();
      return;
    }
    await next();
  });
}

/** What an Events API body says about the installation it concerns. */
function scopeOfEvent(body: {
  team_id?: string;
  enterprise_id?: string | null;
  is_enterprise_install?: boolean;
  authorizations?: { is_enterprise_install?: boolean }[];
}): InstallScope {
  return {
    teamId: body.team_id ?? null,
    enterpriseId: body.enterprise_id ?? null,
    orgWide: body.is_enterprise_install === true || body.authorizations?.[0]?.is_enterprise_install === true,
  };
}

/**
 * `app_uninstalled`, and `tokens_revoked` when it names the bot's token: the workspace's tokens are
 * deleted and its digests and alerts paused. Bolt runs these two without an installation (it may
 * be gone already). Each event id is processed once, whatever Slack retries or repeats.
 */
function listenForRemoval(app: App, workspaces: WorkspaceEvents, log: Logger): void {
  app.event('app_uninstalled', async ({ body }) => {
    const scope = scopeOfEvent(body);
    log.info({ team: scope.teamId, enterprise: scope.enterpriseId }, 'slack: polbot was removed from a workspace');
    await workspaces.removed(scope);
  });
  app.event('tokens_revoked', async ({ event, body }) => {
    if (!event.tokens.bot?.length) return;
    const scope = scopeOfEvent(body);
    log.info({ team: scope.teamId, enterprise: scope.enterpriseId }, "slack: polbot's token was revoked in a workspace");
    await workspaces.removed(scope);
  });
}
