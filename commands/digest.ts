import type { EntityRef } from '../src/api/domain.js';
import { UpstreamError } from '../src/api/errors.js';
import { buildSchedule, formatSlot, nextSlot } from '../src/digest/schedule.js';
import type { DigestService } from '../src/digest/service.js';
import type { Digest } from '../src/digest/store.js';
import type { Action, ErrorReply, Reply, TableReply, TextReply } from '../src/reply/model.js';
import type { Caller, CommandContext } from './context.js';
import { parseAddArgs } from './digest-args.js';
import { parseTarget } from './parse.js';
import { resolveTarget } from './resolve-target.js';

const USAGE = {
  add: { usage: '/pol digest add <names...> [daily|weekdays|weekly [<day>]|"<cron>"] [at HH:MM] [tz <Area/City>]', example: '/pol digest add bitcoin, ethereum, binance weekdays at 09:00 tz Europe/Berlin' },
  list: { usage: '/pol digest list', example: '/pol digest list' },
  remove: { usage: '/pol digest remove <id>', example: '/pol digest remove 12' },
  pause: { usage: '/pol digest pause <id>', example: '/pol digest pause 12' },
  resume: { usage: '/pol digest resume <id>', example: '/pol digest resume 12' },
  preview: { usage: '/pol digest preview <id>', example: '/pol digest preview 12' },
} as const;

type Sub = keyof typeof USAGE;

function usageError(sub: Sub, message: string): ErrorReply {
  const u = USAGE[sub];
  return { kind: 'error', message, hint: `Usage: ${u.usage} (for example ${u.example})` };
}

const ALIASES: Record<string, Sub> = { add: 'add', new: 'add', create: 'add', list: 'list', ls: 'list', remove: 'remove', delete: 'remove', rm: 'remove', pause: 'pause', resume: 'resume', unpause: 'resume', preview: 'preview', show: 'preview' };

/** `/pol digest ...`: scheduled watchlist digests of the caller's channel. */
export async function digestCommand(ctx: CommandContext, args: string, caller: Caller): Promise<Reply> {
  const service = ctx.digests;
  if (!service) {
    // Only a chat channel can receive a digest; the console and `polbot ask` have none.
    return {
      kind: 'error',
      message: 'Scheduled digests are delivered to Slack or Discord channels, and this polbot is not connected to either.',
      hint: 'Run polbot with Slack or Discord configured (see README), or use /pol compare <a>, <b>, ... for several at once.',
    };
  }
  const [head = '', ...restWords] = args.trim().split(/\s+/);
  const rest = restWords.join(' ');
  const sub = ALIASES[head.toLowerCase()];
  if (!sub) return overview(head);
  switch (sub) {
    case 'add':
      return add(ctx, service, rest, caller);
    case 'list':
      return list(ctx, service, caller);
    default:
      return byId(ctx, service, sub, rest, caller);
  }
}

function overview(head: string): Reply {
  const lines = Object.values(USAGE).map((u) => ({ label: u.usage, value: u.example }));
  if (head) return { kind: 'error', message: `Unknown digest command '${head.slice(0, 30)}': use add, list, remove, pause, resume or preview.`, hint: `Usage: ${USAGE.add.usage} (for example ${USAGE.add.example})` };
  return {
    kind: 'text',
    title: 'Scheduled watchlist digests',
    text: 'A digest posts a watchlist to this channel on a schedule: PoL now (lower is safer), the change since the previous digest, ratings, and highlights (downgrades, large PoL moves, new red flags).',
    sections: [{ title: 'Commands', fields: lines }],
  };
}

function notAllowed(caller: Caller): ErrorReply {
  if (caller.platform === 'console') {
    return { kind: 'error', message: 'Digests post to a Slack or Discord channel: add and manage them from that channel.' };
  }
  return {
    kind: 'error',
    message: 'You are not allowed to add, remove, pause or resume digests here.',
    hint: caller.platform === 'discord' ? 'Server managers use the admin digest command.' : 'Ask one of the digest admins of this workspace.',
  };
}

export function namesSummary(entities: readonly EntityRef[], shown = 3): string {
  const names = entities.map((e) => e.name);
  return names.length <= shown ? names.join(', ') : `${names.slice(0, shown).join(', ')} +${names.length - shown} more`;
}

function nextRunText(d: Digest, now: number): string {
  if (d.state !== 'active') return d.state;
  const next = nextSlot(d.cron, d.timezone, now);
  return next === null ? 'none' : formatSlot(next, d.timezone, { weekday: true });
}

async function add(ctx: CommandContext, service: DigestService, text: string, caller: Caller): Promise<Reply> {
  if (caller.platform === 'console' || !caller.canManageDigests) return notAllowed(caller);
  const parsed = parseAddArgs(text);
  if (!parsed.ok) return usageError('add', parsed.message);
  const { names, spec, scheduleText } = parsed.value;
  const { maxEntities, maxPerChannel } = service.limits;
  if (names.length === 0) return usageError('add', 'Name at least one project or exchange to watch.');
  if (names.length > maxEntities) return usageError('add', `A digest watches at most ${maxEntities} names; you named ${names.length}. Split them over two digests.`);
  const now = ctx.now();
  const schedule = buildSchedule(spec, now);
  if (!schedule.ok) return usageError('add', schedule.message);
  const existing = await service.store.listChannel(caller.platform, caller.channelId);
  if (existing.length >= maxPerChannel) return channelFull(maxPerChannel);

  // Every name is resolved now: a digest never guesses later. The first name that needs a choice
  // is asked about; the choice re-runs the whole command with that name made explicit.
  const rebuild = (i: number) => (ref: string) =>
    `digest add ${names.map((n, j) => (j === i ? ref : n.replace(/,/g, ' '))).join(', ')}${scheduleText ? ` ${scheduleText}` : ''}`;
  const results = await Promise.all(names.map((n, i) => resolveTarget(ctx, parseTarget(n), rebuild(i))));
  const pending = results.find((r) => !r.ok);
  if (pending && !pending.ok) return pending.reply;
  const entities: EntityRef[] = [];
  for (const r of results) {
    if (!r.ok) continue;
    const named = await withRealName(ctx, r.entity);
    if ('kind' in named && named.kind === 'error') return named;
    const e = named as EntityRef;
    if (!entities.some((x) => x.kind === e.kind && x.slug === e.slug)) entities.push(e);
  }

  const created = await service.store.create({ platform: caller.platform, channelId: caller.channelId, entities, schedule: schedule.value, createdBy: caller.userId }, now, maxPerChannel);
  if (!created.ok) return channelFull(maxPerChannel);
  const d = created.digest;
  const first = d.nextSlot === null ? 'never (the schedule has no future runs)' : formatSlot(d.nextSlot, d.timezone, { weekday: true });
  return {
    kind: 'text',
    title: `Digest #${d.id} added`,
    text: `${entities.length} ${entities.length === 1 ? 'name' : 'names'}, ${d.scheduleLabel} (${d.timezone}). First digest: ${first}.`,
    sections: [{ title: 'Watchlist', items: entities.map((e) => `${e.name}${e.ticker ? ` (${e.ticker})` : ''} · ${e.kind}`) }],
  } satisfies TextReply;
}

function channelFull(max: number): ErrorReply {
  return { kind: 'error', message: `This channel already has ${max} digests, the most it can have.`, hint: 'Remove one first: see them with /pol digest list.' };
}

/** A chosen button carries only a slug; the stored name must be the real one (and the entity real). */
async function withRealName(ctx: CommandContext, e: EntityRef): Promise<EntityRef | ErrorReply> {
  if (e.name !== e.slug) return e;
  try {
    const rec = await ctx.source.record(e.kind, e.slug);
    return { ...e, name: rec.data.name, ...(rec.data.kind === 'project' && rec.data.ticker ? { ticker: rec.data.ticker } : {}) };
  } catch (err) {
    if (err instanceof UpstreamError && err.kind === 'not_found') return { kind: 'error', message: `There is no ${e.kind} '${e.slug}'.`, hint: 'Check the name with /pol search <text>.' };
    throw err;
  }
}

async function list(ctx: CommandContext, service: DigestService, caller: Caller): Promise<Reply> {
  const digests = await service.store.listChannel(caller.platform, caller.channelId);
  if (digests.length === 0) {
    return { kind: 'text', title: 'No digests in this channel yet', text: `Add one with ${USAGE.add.example}` };
  }
  const now = ctx.now();
  const failing = digests.filter((d) => d.state === 'failing');
  const table: TableReply = {
    kind: 'table',
    title: `Digests in this channel (${digests.length} of at most ${service.limits.maxPerChannel})`,
    note: failing.length
      ? `Failing digests are not sent until resumed: fix the cause, then /pol digest resume ${failing[0]!.id}.`
      : 'Next run in each digest’s own timezone.',
    columns: [
      { key: 'id', label: '#', align: 'right' },
      { key: 'watch', label: 'Watchlist' },
      { key: 'schedule', label: 'Schedule' },
      { key: 'next', label: 'Next run' },
      { key: 'last', label: 'Last sent' },
      { key: 'state', label: 'State' },
    ],
    rows: digests.map((d) => ({
      id: String(d.id),
      watch: namesSummary(d.entities),
      schedule: `${d.scheduleLabel} ${d.timezone}`,
      next: nextRunText(d, now),
      last: d.lastSlot === null ? 'never' : formatSlot(d.lastSlot, d.timezone),
      state:
        d.state === 'failing'
          ? `failing: ${d.stateReason ?? 'unknown reason'}`
          : d.state === 'active' && d.lastError
            ? `active (last attempt failed: ${d.lastError})`
            : d.state,
    })),
    actions: digests.map((d): Action => ({ label: `Preview #${d.id}`, command: `digest preview ${d.id}` })),
  };
  return table;
}

async function byId(ctx: CommandContext, service: DigestService, sub: Exclude<Sub, 'add' | 'list'>, rest: string, caller: Caller): Promise<Reply> {
  const m = /^#?(\d{1,9})$/.exec(rest.trim());
  if (!m) return usageError(sub, rest.trim() ? `'${rest.trim().slice(0, 20)}' is not a digest number.` : 'Which digest? Give its number from /pol digest list.');
  const id = Number(m[1]);
  if (sub !== 'preview' && (caller.platform === 'console' || !caller.canManageDigests)) return notAllowed(caller);
  const { store } = service;
  const missing: ErrorReply = { kind: 'error', message: `There is no digest #${id} in this channel.`, hint: 'See this channel’s digests with /pol digest list.' };
  const now = ctx.now();
  switch (sub) {
    case 'preview': {
      const d = await store.getInChannel(id, caller.platform, caller.channelId);
      return d ? service.preview(d, now) : missing;
    }
    case 'remove':
      return (await store.remove(id, caller.platform, caller.channelId)) ? { kind: 'text', title: `Digest #${id} removed`, text: 'It will not be sent again.' } : missing;
    case 'pause': {
      const d = await store.pause(id, caller.platform, caller.channelId, now);
      return d ? { kind: 'text', title: `Digest #${id} paused`, text: `Resume it with /pol digest resume ${id}; slots while paused are not caught up.` } : missing;
    }
    case 'resume': {
      const before = await store.getInChannel(id, caller.platform, caller.channelId);
      if (!before) return missing;
      if (before.state === 'active') return { kind: 'text', title: `Digest #${id} is already active`, text: `Next digest: ${nextRunText(before, now)}.` };
      const d = await store.resume(id, caller.platform, caller.channelId, now);
      if (!d) return missing;
      const was = before.state === 'failing' ? ` It was failing (${before.stateReason ?? 'unknown reason'}); if the cause remains, it will fail again.` : '';
      return { kind: 'text', title: `Digest #${id} resumed`, text: `Next digest: ${nextRunText(d, now)}.${was}` };
    }
  }
}
