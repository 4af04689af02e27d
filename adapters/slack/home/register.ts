import type { App, BlockAction, ButtonAction, ExternalSelectAction, webApi } from '@slack/bolt';
import type { RunResult, Caller } from '../../../commands/core/index.js';
import type { EntityKind, EntityRef } from '../../../src/api/domain.js';
import type { CachedDataSource } from '../../../src/api/cache/cached-source.js';
import type { AlertService } from '../../../src/alerts/service.js';
import type { AlertRule } from '../../../src/alerts/store.js';
import { slackCanManageDigests } from '../permissions.js';
import type { DigestService } from '../../../src/digest/service.js';
import type { Digest } from '../../../src/digest/store.js';
import type { Logger } from '../../../src/log.js';
import { RecentLookups } from '../../../src/recent/lookups.js';
import { audienceOf } from '../../../src/reply/model.js';
import { within } from '../../../src/time/within.js';
import { renderReply, type Block } from '../blocks.js';
import { postToChannel, SlackDeliveryError, slackErrorCode } from '../delivery.js';
import { flat, mrkdwn, plain } from '../escape.js';
import { clip, LIMITS } from '../limits.js';
import { ChannelMemberships } from './channels.js';
import {
  DATABASE_UNAVAILABLE,
  HOME_MANAGE_ACTION,
  HOME_SEARCH_ACTION,
  HOME_VIEW_ACTION,
  homeView,
  RECENT_SHOWN,
  type HomeModel,
  type RecentRow,
} from './view.js';

/**
 * polbot's Home tab: the person's recent lookups, the digests and alert rules of the channels they
 * are in (with Pause, Resume and Remove for those who may manage them), and a search box.
 *
 * Every button runs a command through the same core as `/pol`, so permissions and wording stay in
 * one place. Every Slack call uses the listener's own `client`, which Bolt authorizes for the
 * workspace the event came from.
 *
 * Where a card opened from Home goes: Home has no channel, so the card is posted in the person's
 * own conversation with polbot (its Messages tab), and the Home view says so with a link there.
 * Rendered into the Home view itself it would lose what makes a card useful: the chart (a file,
 * which a view cannot hold), its buttons (which answer in a thread), and being there tomorrow, or
 * forwarded to a colleague. A modal would vanish on the next click and has a 3-second trigger a
 * cold lookup can miss.
 */

/** What Home needs from the command core; the full core (`Core`) has all of it. */
export interface HomeCore {
  run(text: string, caller?: Caller): Promise<RunResult>;
  ctx?: { digests?: DigestService; alerts?: AlertService; source?: CachedDataSource };
  suggest?(prefix: string, limit: number): EntityRef[];
  canList?(kind: EntityKind): boolean;
  refreshList?(kind: EntityKind): Promise<void>;
}

export interface HomeOptions {
  core: HomeCore;
  /** The adapter's own: a command through the core (failures said, lookups noted), who asked, and double-click suppression. */
  run(text: string, caller: Caller): Promise<RunResult>;
  callerOf(userId: string, channelId: string, who: { userName?: string | undefined; teamId?: string | undefined }): Caller;
  firstClick(key: string): boolean;
  log: Logger;
  /** DIGEST_ADMINS: who may manage digests and alert rules; empty lets everyone. */
  digestAdmins: readonly string[];
  /** Work to wait for on shutdown. */
  track: <T>(work: Promise<T>) => Promise<T>;
  now?: () => number;
  /** How long a card may take before Home says it is on its way. */
  progressMs?: number;
}

export interface Home {
  /**
   * Called with every answer polbot gives a person in Slack: a card about one entity is a lookup,
   * remembered for their Home tab. Never delays or changes the answer.
   */
  noted(caller: Caller): (result: RunResult) => RunResult;
  /** The names a workspace's people look up most (for the agent surface's suggested prompts); none without a database. */
  mostAsked(teamId: string, limit: number): Promise<string[]>;
}

/** Slack shows "no results" if options are not answered within 3 s; suggestions never wait on the upstream. */
const SUGGESTIONS = 25;

type HomeAction = BlockAction<ButtonAction | ExternalSelectAction>;

export function registerHome(app: App, o: HomeOptions): Home {
  const { core, log, track, run, firstClick } = o;
  const now = o.now ?? Date.now;
  const memberships = new ChannelMemberships();
  // The database arrives with the digests, after the adapter is built: looked up when needed.
  let lookups: { db: unknown; store: RecentLookups } | undefined;
  const recentStore = (): RecentLookups | undefined => {
    const db = core.ctx?.digests?.store.db;
    if (!db) return undefined;
    if (lookups?.db !== db) lookups = { db, store: new RecentLookups(db) };
    return lookups.store;
  };

  const noted =
    (caller: Caller) =>
    (result: RunResult): RunResult => {
      const { reply } = result;
      const store = recentStore();
      if (reply.kind === 'card' && caller.platform === 'slack' && caller.workspaceId && store) {
        const owner = { platform: 'slack' as const, workspaceId: caller.workspaceId, userId: caller.userId };
        void track(store.record(owner, reply.entity, now())).catch((err: unknown) =>
          log.warn({ err }, 'slack home: a lookup could not be remembered'),
        );
      }
      return result;
    };

  async function recentRows(teamId: string, userId: string): Promise<RecentRow[] | null> {
    const store = recentStore();
    if (!store) return [];
    const rows = await store.list({ platform: 'slack', workspaceId: teamId, userId }, RECENT_SHOWN).catch((err: unknown) => {
      log.warn({ err }, 'slack home: recent lookups could not be read');
      return null;
    });
    const cache = core.ctx?.source?.cache;
    return (
      rows?.map((r): RecentRow => {
        // Only what is cached already: opening Home never waits on the upstream.
        const seen = cache?.peek('polCurrent', r.kind, r.slug);
        return seen
          ? {
              ...r,
              pol: { value: seen.data.pol, rating: seen.data.rating, fetchedAt: seen.meta.fetchedAt, simulated: seen.meta.simulated },
            }
          : r;
      }) ?? null
    );
  }

  async function manageModel(client: webApi.WebClient, teamId: string, userId: string): Promise<HomeModel['manage']> {
    const digests = core.ctx?.digests;
    const alerts = core.ctx?.alerts;
    if (!digests && !alerts) return null;
    const canManage = slackCanManageDigests(o.digestAdmins, userId);
    const member = await memberships.of(client, teamId, userId);
    if (!member.ok) return { canManage, channels: member, digests: [], alerts: [] };
    const channels = [...member.channels];
    const [digestList, ruleList] = await Promise.all([
      digests ? digests.store.listChannels('slack', channels) : Promise.resolve<Digest[]>([]),
      alerts ? alerts.store.listChannels('slack', channels) : Promise.resolve<AlertRule[]>([]),
    ]);
    return { canManage, channels: { ok: true, truncated: member.truncated }, digests: digestList, alerts: ruleList };
  }

  async function publish(client: webApi.WebClient, teamId: string, userId: string, notice?: Block[]): Promise<void> {
    try {
      const [recent, manage] = await Promise.all([
        recentRows(teamId, userId),
        manageModel(client, teamId, userId).catch((err: unknown) => {
          log.warn({ err }, 'slack home: digests and alert rules could not be read');
          return { canManage: false, channels: { ok: false, code: DATABASE_UNAVAILABLE }, digests: [], alerts: [] } as const;
        }),
      ]);
      const view = homeView({ now: now(), recent, manage, ...(notice ? { notice } : {}) });
      await client.views.publish({ user_id: userId, view });
    } catch (err) {
      log.warn(
        { code: slackErrorCode(err) ?? 'unknown_error', err: slackErrorCode(err) ? undefined : err },
        'slack home: the Home tab could not be published',
      );
    }
  }

  /** The answer to a click, shown at the top of Home: the reply as any surface renders it, without its buttons. */
  const noticeOf = (result: RunResult, extra?: string): Block[] => {
    const blocks = renderReply(result.reply).blocks.filter((b) => b.type === 'header' || b.type === 'section' || b.type === 'context');
    return extra
      ? [...blocks.slice(0, 3), { type: 'context', elements: [{ type: 'mrkdwn', text: clip(extra, LIMITS.contextText) }] }]
      : blocks;
  };
  const noticeText = (text: string): Block[] => [{ type: 'section', text: { type: 'mrkdwn', text: clip(text, LIMITS.sectionText) } }];

  const warmLists = (): void => {
    if (!core.refreshList) return;
    for (const kind of ['project', 'exchange'] as const) if (core.canList?.(kind) !== false) void core.refreshList(kind);
  };

  app.event('app_home_opened', ({ event, client, context, body }) =>
    track(
      (async () => {
        // The same event comes for the Messages tab, which shows the conversation itself.
        if (event.tab !== 'home') return;
        const teamId = context.teamId ?? body.team_id;
        await publish(client, teamId, event.user);
        warmLists();
      })(),
    ),
  );

  const teamOf = (body: HomeAction, contextTeam: string | undefined): string => contextTeam ?? body.user.team_id ?? body.team?.id ?? '';

  /** A card for the person, in their conversation with polbot, and Home pointing to it. */
  async function showCard(client: webApi.WebClient, teamId: string, body: HomeAction, command: string, appId: string): Promise<void> {
    const user = { id: body.user.id, name: body.user.name ?? body.user.username };
    let dm: string | undefined;
    try {
      dm = (await client.conversations.open({ users: user.id })).channel?.id;
    } catch (err) {
      log.warn({ code: slackErrorCode(err) ?? 'unknown_error' }, 'slack home: the conversation with the person could not be opened');
    }
    if (!dm) {
      await publish(
        client,
        teamId,
        user.id,
        noticeText(
          ':warning: polbot could not open its Messages tab with you just now. Please try again, or type `/pol` with the name in any channel.',
        ),
      );
      return;
    }
    const work = run(command, o.callerOf(user.id, dm, { userName: user.name, teamId }));
    if (!(await within(work, o.progressMs ?? 1_000)))
      await publish(client, teamId, user.id, noticeText(`:hourglass_flowing_sand: Looking up… the card will be in your Messages tab.`));
    const result = await work;
    if (audienceOf(result.reply) !== 'channel') {
      await publish(client, teamId, user.id, noticeOf(result));
      return;
    }
    const what = result.reply.kind === 'card' ? `*${mrkdwn(flat(result.reply.title))}*` : 'The answer';
    const where = `<https://slack.com/app_redirect?app=${encodeURIComponent(appId)}&team=${encodeURIComponent(teamId)}|Messages tab>`;
    try {
      const posted = await postToChannel(client, log, dm, result.reply);
      const chart = posted.chartError ? ` Its chart could not be attached (\`${mrkdwn(posted.chartError)}\`).` : '';
      await publish(client, teamId, user.id, noticeText(`:white_check_mark: ${what} is in your ${where}.${chart}`));
    } catch (err) {
      const code = err instanceof SlackDeliveryError ? err.code : 'unknown_error';
      log.warn({ code }, 'slack home: the card could not be posted to the person');
      await publish(
        client,
        teamId,
        user.id,
        noticeText(`:warning: ${what} could not be sent to your Messages tab (Slack said \`${mrkdwn(code)}\`). Please try again.`),
      );
    }
  }

  /** Pause, resume or remove: the command runs in the digest's channel, as if typed there. */
  async function manage(client: webApi.WebClient, teamId: string, body: HomeAction, value: string): Promise<void> {
    const user = { id: body.user.id, name: body.user.name ?? body.user.username };
    const [channel = '', ...rest] = value.split(' ');
    const command = rest.join(' ');
    // The view may be older than a change of membership: the rule is the channel's, as it is now.
    const member = await memberships.of(client, teamId, user.id);
    if (!member.ok || !member.channels.has(channel)) {
      await publish(
        client,
        teamId,
        user.id,
        noticeText(`:warning: You are not in <#${channel}> any more, so its digests and alert rules are managed by its members.`),
      );
      return;
    }
    const result = await run(command, o.callerOf(user.id, channel, { userName: user.name, teamId }));
    if (audienceOf(result.reply) !== 'channel') {
      await publish(client, teamId, user.id, noticeOf(result));
      return;
    }
    // The channel hears of it as it would from `/pol digest pause` typed there.
    const told = await postToChannel(client, log, channel, result.reply).then(
      () => `Also posted in <#${channel}>.`,
      (err: unknown) =>
        `<#${channel}> could not be told (Slack said \`${mrkdwn(err instanceof SlackDeliveryError ? err.code : 'unknown_error')}\`).`,
    );
    await publish(client, teamId, user.id, noticeOf(result, told));
  }

  app.action<HomeAction>({ action_id: HOME_VIEW_ACTION }, ({ ack, action, body, client, context }) =>
    track(
      (async () => {
        await ack();
        const value = action.type === 'button' ? action.value : undefined;
        if (!value || !firstClick(`${body.user.id}:view:${value}`)) return;
        await showCard(client, teamOf(body, context.teamId), body, value, body.api_app_id);
      })(),
    ),
  );

  app.action<HomeAction>({ action_id: HOME_SEARCH_ACTION }, ({ ack, action, body, client, context }) =>
    track(
      (async () => {
        await ack();
        const value = action.type === 'external_select' ? action.selected_option?.value : undefined;
        if (!value || !firstClick(`${body.user.id}:view:${value}`)) return;
        await showCard(client, teamOf(body, context.teamId), body, value, body.api_app_id);
      })(),
    ),
  );

  app.action<HomeAction>({ action_id: HOME_MANAGE_ACTION }, ({ ack, action, body, client, context }) =>
    track(
      (async () => {
        await ack();
        const value = action.type === 'button' ? action.value : undefined;
        if (!value || !firstClick(`${body.user.id}:manage:${value}`)) return;
        await manage(client, teamOf(body, context.teamId), body, value);
      })(),
    ),
  );

  // The search box: names from the lists polbot holds, answered at once (Slack waits 3 s at most).
  app.options<'block_suggestion'>({ action_id: HOME_SEARCH_ACTION }, async ({ ack, payload }) => {
    const typed = flat(String(payload.value ?? '')).slice(0, 60);
    const refs = typed && core.suggest ? core.suggest(typed, SUGGESTIONS) : [];
    const options = refs
      .map((r) => ({
        text: {
          type: 'plain_text' as const,
          text: clip(plain(flat(`${r.name}${r.ticker ? ` (${r.ticker})` : ''} · ${r.kind}`)), LIMITS.optionText),
        },
        value: `${r.kind}:${r.slug}`,
      }))
      .filter((opt) => opt.value.length <= LIMITS.optionValue);
    // Without a list of exchanges (the tool server alone), a typed slug is how an exchange is named.
    const slug = typed.toLowerCase();
    if (
      core.canList?.('exchange') === false &&
      /^[a-z0-9][a-z0-9_-]{0,60}$/.test(slug) &&
      !options.some((opt) => opt.value === `exchange:${slug}`)
    ) {
      options.unshift({ text: { type: 'plain_text', text: clip(`${slug} · exchange`, LIMITS.optionText) }, value: `exchange:${slug}` });
    }
    await ack({ options: options.slice(0, SUGGESTIONS) });
    warmLists();
  });

  const mostAsked = async (teamId: string, limit: number): Promise<string[]> =>
    (await recentStore()?.mostAsked('slack', teamId, limit)) ?? [];
  return { noted, mostAsked };
}
