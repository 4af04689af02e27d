import type { types } from '@slack/bolt';
import type { Checked } from '../../../src/api/domain.js';
import { durationText } from '../../../src/alerts/duration.js';
import type { AlertRule } from '../../../src/alerts/store.js';
import type { Digest } from '../../../src/digest/store.js';
import { namesSummary, nextRunText } from '../../../src/digest/text.js';
import { pol, rating } from '../../../src/reply/format.js';
import type { RecentLookup } from '../../../src/recent/lookups.js';
import type { Block } from '../blocks.js';
import { flat, mrkdwn, plain } from '../escape.js';
import { clip, LIMITS } from '../limits.js';

/**
 * The Home tab, built from what the listener gathered. Pure: no I/O, no clock of its own. Every
 * name from the upstream or the store goes through escape.ts, and the view keeps to Slack's limits
 * for Home tabs (100 blocks) whatever the number of digests, saying how many were left out.
 */

/** Slack's most blocks in a Home tab (messages take 50, views 100). */
export const HOME_MAX_BLOCKS = 100;
/** Shown in "recent lookups"; the store keeps a few more. */
export const RECENT_SHOWN = 10;

export const HOME_SEARCH_ACTION = 'pol_home_search';
export const HOME_VIEW_ACTION_PREFIX = 'pol_home_view_';
export const HOME_MANAGE_ACTION_PREFIX = 'pol_home_manage_';
export const HOME_VIEW_ACTION = /^pol_home_view_\d+$/;
export const HOME_MANAGE_ACTION = /^pol_home_manage_\d+$/;

export interface RecentRow extends RecentLookup {
  /** The PoL polbot last fetched, when it is at hand without asking the upstream. */
  pol?: { value: Checked<number>; rating: Checked<string>; fetchedAt: number; simulated: boolean };
}

/** `code`: Slack's error for users.conversations, or DATABASE_UNAVAILABLE. */
export type ChannelsRead = { ok: true; truncated: boolean } | { ok: false; code: string };
export const DATABASE_UNAVAILABLE = 'database_unavailable';

export interface HomeModel {
  /** Epoch ms, for next runs. */
  now: number;
  /** What the person's last click here did, rendered by the same renderer as any answer. */
  notice?: readonly Block[];
  /** Null: the store could not be read, or there is none. */
  recent: readonly RecentRow[] | null;
  /** Null when this polbot keeps no digests or alerts (no database). */
  manage: {
    canManage: boolean;
    channels: ChannelsRead;
    digests: readonly Digest[];
    alerts: readonly AlertRule[];
  } | null;
}

const md = (text: string): types.MrkdwnElement => ({ type: 'mrkdwn', text: text.trim() ? text : '—' });
const section = (text: string): types.SectionBlock => ({ type: 'section', text: md(clip(text, LIMITS.sectionText)) });
const context = (text: string): types.ContextBlock => ({ type: 'context', elements: [md(clip(text, LIMITS.contextText))] });
const header = (text: string): types.HeaderBlock => ({
  type: 'header',
  text: { type: 'plain_text', text: clip(plain(flat(text)), LIMITS.headerText), emoji: true },
});
const divider: types.DividerBlock = { type: 'divider' };
const label = (text: string): types.PlainTextElement => ({ type: 'plain_text', text, emoji: true });

/** A Slack date that each reader sees in their own time zone ("3 minutes ago"), with a UTC fallback. */
function ago(msValue: number): string {
  const sec = Math.floor(msValue / 1000);
  return `<!date^${sec}^{ago}|${new Date(sec * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC>`;
}

function recentBlocks(rows: readonly RecentRow[] | null): Block[] {
  const blocks: Block[] = [header('Your recent lookups')];
  if (rows === null)
    return [...blocks, context('Your recent lookups could not be read just now. They come back when the database answers again.')];
  if (rows.length === 0)
    return [
      ...blocks,
      context('Nothing yet. Type a name above, or `/pol binance` in any channel: the projects and exchanges you look up are listed here.'),
    ];
  rows.slice(0, RECENT_SHOWN).forEach((r, i) => {
    const glance = r.pol
      ? `PoL ${pol(r.pol.value)} · ${rating(r.pol.rating)} · fetched ${ago(r.pol.fetchedAt)}${r.pol.simulated ? ' · simulated' : ''}`
      : '';
    blocks.push({
      type: 'section',
      text: md(clip(`*${mrkdwn(flat(r.name))}* · ${r.kind}${glance ? `\n${glance}` : ''}`, LIMITS.sectionText)),
      accessory: { type: 'button', text: label('View'), action_id: `${HOME_VIEW_ACTION_PREFIX}${i}`, value: `${r.kind}:${r.slug}` },
    });
  });
  const simulated = rows.some((r) => r.pol?.simulated);
  blocks.push(
    context(
      `PoL is the probability of loss: lower is safer. Shown as polbot last fetched it; *View* sends you the card as it is now.${simulated ? ' SIMULATED DATA (demo mode).' : ''}`,
    ),
  );
  return blocks;
}

const STATE_ORDER = { failing: 0, paused: 1, active: 2 } as const;

function digestText(d: Digest, now: number): string {
  const state =
    d.state === 'failing'
      ? `:warning: Failing: ${mrkdwn(flat(d.stateReason ?? 'unknown reason'))}`
      : d.state === 'paused'
        ? `:double_vertical_bar: Paused${d.stateReason ? `: ${mrkdwn(flat(d.stateReason))}` : ''}`
        : `Next: ${mrkdwn(nextRunText(d, now))}${d.lastError ? ` · last attempt failed: ${mrkdwn(flat(d.lastError))}` : ''}`;
  return `*Digest #${d.id}* in <#${d.channelId}> · ${mrkdwn(flat(`${d.scheduleLabel} ${d.timezone}`))}\n${mrkdwn(flat(namesSummary(d.entities)))}\n${state}`;
}

function ruleText(r: AlertRule): string {
  const state =
    r.state === 'paused'
      ? `:double_vertical_bar: Paused${r.stateReason ? `: ${mrkdwn(flat(r.stateReason.replace(/^paused: /, '')))}` : ''}`
      : 'Active';
  return `*Alert rule #${r.id}* in <#${r.channelId}> · when ${mrkdwn(flat(r.conditionText))} · every ${durationText(r.everySec)}\n${mrkdwn(flat(namesSummary(r.entities)))}\n${state}`;
}

/** A button's value: the channel the command runs in, then the command as typed after `/pol`. */
export function manageValue(channelId: string, command: string): string {
  return `${channelId} ${command}`;
}

function manageButtons(next: () => string, channelId: string, what: string, id: number, paused: boolean): types.ActionsBlock {
  const noun = what === 'digest' ? `digest #${id}` : `alert rule #${id}`;
  return {
    type: 'actions',
    elements: [
      paused
        ? {
            type: 'button',
            text: label('Resume'),
            style: 'primary',
            action_id: next(),
            value: manageValue(channelId, `${what} resume ${id}`),
          }
        : { type: 'button', text: label('Pause'), action_id: next(), value: manageValue(channelId, `${what} pause ${id}`) },
      {
        type: 'button',
        text: label('Remove'),
        style: 'danger',
        action_id: next(),
        value: manageValue(channelId, `${what} remove ${id}`),
        confirm: {
          title: label(`Remove ${noun}?`),
          text: label(
            what === 'digest'
              ? 'It stops for the whole channel and cannot be brought back.'
              : 'It is no longer checked, for the whole channel, and its alerts are deleted.',
          ),
          confirm: label('Remove'),
          deny: label('Keep it'),
          style: 'danger',
        },
      },
    ],
  };
}

/** "…and 26 more in #a, #b: `/pol digest list` there lists them all." */
function moreLine(hidden: readonly { channelId: string }[], noun: string, command: string): Block[] {
  if (hidden.length === 0) return [];
  const channels = [...new Set(hidden.map((h) => h.channelId))];
  const shown = channels
    .slice(0, 10)
    .map((c) => `<#${c}>`)
    .join(', ');
  const rest = channels.length > 10 ? ` and ${channels.length - 10} more channels` : '';
  return [context(`…and ${hidden.length} more ${noun} in ${shown}${rest}: \`/pol ${command}\` in a channel lists all of its own.`)];
}

function manageBlocks(m: NonNullable<HomeModel['manage']>, now: number, budget: number): Block[] {
  const blocks: Block[] = [header('Digests and alert rules in your channels')];
  if (!m.channels.ok) {
    const why =
      m.channels.code === DATABASE_UNAVAILABLE
        ? 'They could not be read just now; open this tab again in a minute.'
        : m.channels.code === 'missing_scope'
          ? 'polbot needs to be reinstalled from its manifest to read which channels you are in (permissions `channels:read` and `groups:read`).'
          : `Slack did not say which channels you are in just now (\`${mrkdwn(m.channels.code)}\`); open this tab again in a minute.`;
    return [...blocks, context(why)];
  }
  const digests = [...m.digests].sort((a, b) => STATE_ORDER[a.state] - STATE_ORDER[b.state] || a.id - b.id);
  const rules = [...m.alerts].sort((a, b) => (a.state === b.state ? a.id - b.id : a.state === 'paused' ? -1 : 1));
  if (digests.length === 0 && rules.length === 0) {
    return [
      ...blocks,
      context(
        'None in the channels you are in. Add one in a channel with `/pol digest add bitcoin, ethereum daily at 09:00` or `/pol alert add binance when pol above 5%`.',
      ),
    ];
  }
  blocks.push(
    context(
      m.canManage
        ? 'Pause, resume or remove them here: the channel is told, as when it is done there with `/pol digest pause`.'
        : 'Only this workspace’s digest admins can pause, resume or remove them.',
    ),
  );
  if (m.channels.truncated)
    blocks.push(context('You are in more channels than polbot reads at once; some channels’ digests may be missing here.'));
  // Each item takes a section, and its buttons an actions block; two blocks stay for "…and N more".
  const perItem = m.canManage ? 2 : 1;
  const room = Math.max(0, Math.floor((budget - blocks.length - 2) / perItem));
  const rulesShown = Math.min(rules.length, Math.max(Math.floor(room / 2), room - digests.length));
  const digestsShown = Math.min(digests.length, room - rulesShown);
  let n = 0;
  const next = () => `${HOME_MANAGE_ACTION_PREFIX}${n++}`;
  for (const d of digests.slice(0, digestsShown)) {
    blocks.push(section(digestText(d, now)));
    if (m.canManage) blocks.push(manageButtons(next, d.channelId, 'digest', d.id, d.state !== 'active'));
  }
  blocks.push(...moreLine(digests.slice(digestsShown), digests.length - digestsShown === 1 ? 'digest' : 'digests', 'digest list'));
  for (const r of rules.slice(0, rulesShown)) {
    blocks.push(section(ruleText(r)));
    if (m.canManage) blocks.push(manageButtons(next, r.channelId, 'alert', r.id, r.state === 'paused'));
  }
  blocks.push(...moreLine(rules.slice(rulesShown), rules.length - rulesShown === 1 ? 'alert rule' : 'alert rules', 'alert list'));
  return blocks;
}

/** At most this many blocks of an action's answer are shown at the top. */
const NOTICE_BLOCKS = 4;

export function homeView(model: HomeModel): types.HomeView {
  // Slack shows the app's name above the tab already; what the last click did comes first.
  const top: Block[] = [];
  const notice = (model.notice ?? [])
    .filter((b) => b.type === 'header' || b.type === 'section' || b.type === 'context')
    .slice(0, NOTICE_BLOCKS);
  if (notice.length) top.push(...notice, divider);
  top.push(
    {
      type: 'section',
      block_id: HOME_SEARCH_ACTION,
      text: md('*Look up a project or exchange*'),
      accessory: {
        type: 'external_select',
        action_id: HOME_SEARCH_ACTION,
        placeholder: label('Type a name: binance, uniswap…'),
        min_query_length: 1,
      },
    },
    context('Cards you open here arrive in your Messages tab with polbot, where their buttons work as in a channel.'),
    divider,
    ...recentBlocks(model.recent),
  );
  if (model.manage) top.push(divider, ...manageBlocks(model.manage, model.now, HOME_MAX_BLOCKS - top.length - 1));
  return { type: 'home', blocks: top };
}
