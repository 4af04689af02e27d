import { buildSchedule, formatSlot, WEEKDAYS, type ScheduleSpec } from '../src/digest/schedule.js';
import { inline, ref } from '../src/reply/inline.js';
import type { ErrorReply, Reply, TextReply } from '../src/reply/model.js';
import { timeZoneChoices } from './kit/choices.js';
import { channelFull, withDigests } from './kit/digest.js';
import { parseAddArgs } from './kit/digest-args.js';
import { resolveWatchlist } from './kit/resolve-watchlist.js';
import { defineCommand, list, str, stringArgs, type Args } from './kit/spec.js';

const SCHEDULES = ['daily', 'weekdays', 'weekly'] as const;

/** The typed schedule of `args`, as `parseAddArgs` reads it back. */
function scheduleText(args: Args): string {
  const cron = str(args, 'cron');
  const schedule = str(args, 'schedule');
  const day = str(args, 'day');
  return [
    cron ? `"${cron.replace(/["“”]/g, '')}"` : schedule === 'weekly' || (!schedule && day) ? `weekly${day ? ` ${day}` : ''}` : schedule,
    str(args, 'at') && `at ${str(args, 'at')}`,
    str(args, 'tz') && `tz ${str(args, 'tz')}`,
  ]
    .filter(Boolean)
    .join(' ');
}

function specOf(args: Args): ScheduleSpec {
  const tz = str(args, 'tz') ? { timezone: str(args, 'tz') } : {};
  const time = str(args, 'at') ? { time: str(args, 'at') } : {};
  const cron = str(args, 'cron');
  if (cron) return { kind: 'cron', cron, ...tz };
  const schedule = str(args, 'schedule') || (str(args, 'day') ? 'weekly' : 'daily');
  if (schedule === 'weekly') return { kind: 'weekly', ...(str(args, 'day') ? { day: str(args, 'day') } : {}), ...time, ...tz };
  return { kind: schedule as 'daily' | 'weekdays', ...time, ...tz };
}

const USAGE = '<names...> [daily|weekdays|weekly [<day>]|"<cron>"] [at HH:MM] [tz <Area/City>]';

export default defineCommand({
  name: 'digest-add',
  order: 41,
  words: ['digest', 'add'],
  aliases: [
    ['digest', 'new'],
    ['digest', 'create'],
  ],
  summary: 'Post a digest of a watchlist to this channel on a schedule',
  examples: ['digest add bitcoin, ethereum daily at 09:00 tz Europe/Berlin'],
  group: 'digest',
  preconditions: ['digests', 'managers'],
  options: [
    {
      type: 'entities',
      name: 'names',
      description: 'Projects and exchanges, separated by commas',
      required: true,
      min: 1,
      max: 100,
      discord: 'joined',
      missing: 'Name at least one project or exchange to watch.',
    },
    { type: 'choice', name: 'schedule', description: 'How often (default daily)', choices: SCHEDULES.map((value) => ({ value })) },
    {
      type: 'choice',
      name: 'day',
      description: 'Day of the week, with weekly (default Monday)',
      choices: WEEKDAYS.map((value) => ({ value })),
    },
    { type: 'text', name: 'cron', description: 'A cron expression instead of a schedule, e.g. 0 9 * * 1-5', maxLength: 100 },
    { type: 'text', name: 'at', description: 'Time of day, HH:MM (24 h)', maxLength: 10 },
    {
      type: 'text',
      name: 'tz',
      description: 'Time zone, e.g. Europe/Berlin (default UTC)',
      maxLength: 64,
      complete: (_ctx, typed) => timeZoneChoices(typed),
    },
  ],
  text: {
    usage: USAGE,
    parse(rest) {
      const parsed = parseAddArgs(rest);
      if (!parsed.ok) return parsed;
      const { names, spec, scheduleText } = parsed.value;
      const args: Record<string, string | string[]> = { names };
      if (spec.kind === 'cron') args.cron = spec.cron;
      // Only a schedule the person named is kept: daily is the default, not something they said.
      else if (scheduleText.startsWith(spec.kind)) args.schedule = spec.kind;
      if (spec.kind === 'weekly' && spec.day) args.day = spec.day.toLowerCase();
      if (spec.kind !== 'cron' && spec.time) args.at = spec.time;
      if (spec.timezone) args.tz = spec.timezone;
      return { ok: true, args };
    },
    format: (args) =>
      [
        list(args, 'names')
          .map((n) => n.replace(/,/g, ' '))
          .join(', '),
        scheduleText(args),
      ]
        .filter(Boolean)
        .join(' '),
  },
  handler: (ctx, args) =>
    withDigests(ctx, async (service): Promise<Reply> => {
      const names = list(args, 'names');
      if (str(args, 'cron') && str(args, 'at'))
        return usage(`'at' goes with daily, weekdays or weekly; with a cron expression, put the time in the expression.`);
      const { maxEntities, maxPerChannel } = service.limits;
      if (names.length > maxEntities)
        return usage(`A digest watches at most ${maxEntities} names; you named ${names.length}. Split them over two digests.`);
      const now = ctx.now();
      const schedule = buildSchedule(specOf(args), now);
      if (!schedule.ok) return usage(schedule.message);
      const existing = await service.store.listChannel(ctx.caller.platform, ctx.caller.channelId);
      if (existing.length >= maxPerChannel) return channelFull(maxPerChannel);

      const resolved = await resolveWatchlist(ctx, names, (chosen) => ({
        command: 'digest-add',
        args: { ...stringArgs(args), names: chosen },
      }));
      if (!resolved.ok) return resolved.reply;
      const { entities } = resolved;

      const { platform, channelId, userId, workspaceId, enterpriseId } = ctx.caller;
      const created = await service.store.create(
        {
          platform,
          channelId,
          workspaceId: workspaceId ?? null,
          enterpriseId: enterpriseId ?? null,
          entities,
          schedule: schedule.value,
          createdBy: userId,
        },
        now,
        maxPerChannel,
      );
      if (!created.ok) return channelFull(maxPerChannel);
      const d = created.digest;
      const first = d.nextSlot === null ? 'never (the schedule has no future runs)' : formatSlot(d.nextSlot, d.timezone, { weekday: true });
      return {
        kind: 'text',
        title: `Digest #${d.id} added`,
        text: `${entities.length} ${entities.length === 1 ? 'name' : 'names'}, ${d.scheduleLabel} (${d.timezone}). First digest: ${first}.`,
        sections: [{ title: 'Watchlist', items: entities.map((e) => `${e.name}${e.ticker ? ` (${e.ticker})` : ''} · ${e.kind}`) }],
      } satisfies TextReply;
    }),
});

function usage(message: string): ErrorReply {
  return {
    kind: 'error',
    message,
    hint: inline`For example: ${ref('digest-add', { names: ['bitcoin', 'ethereum', 'binance'], schedule: 'weekdays', at: '09:00', tz: 'Europe/Berlin' })}`,
  };
}
