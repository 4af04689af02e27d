import { MAX_MUTE_SEC, MIN_MUTE_SEC, targetText } from '../src/alerts/mutes.js';
import { utcTime } from '../src/alerts/message.js';
import { inline, ref } from '../src/reply/inline.js';
import type { ErrorReply, Reply } from '../src/reply/model.js';
import { withAlerts } from './kit/alert.js';
import { verbSpec } from './kit/group.js';
import { channelTarget, targetWords, typedTarget } from './kit/mute.js';
import { defineCommand, str } from './kit/spec.js';

const DEFAULT_FOR = '1h';

/** 30m, 2h, 24h, 7d, 1w: how long a mute lasts, in seconds; undefined for anything else. */
function muteSec(text: string): number | undefined {
  const m = /^(\d{1,5})\s*(m|min|mins|minutes?|h|hr|hrs|hours?|d|days?|w|weeks?)$/i.exec(text.trim());
  if (!m) return undefined;
  const unit = m[2]!.toLowerCase()[0]!;
  return Number(m[1]) * { m: 60, h: 3_600, d: 86_400, w: 604_800 }[unit as 'm' | 'h' | 'd' | 'w'];
}

const DURATION = /^\d{1,5}\s*(m|min|mins|minutes?|h|hr|hrs|hours?|d|days?|w|weeks?)$/i;

export default defineCommand({
  ...verbSpec('alert', 'mute', 62),
  summary: 'Mute alerts for a while: one name, one rule, or the whole channel; crossings are recorded, not posted',
  examples: ['alert mute binance 24h', 'alert mute rule 1 2h', 'alert mute all 1h'],
  preconditions: ['alerts', 'managers'],
  options: [
    {
      type: 'text',
      name: 'target',
      description: 'A name the channel’s rules watch, rule <number>, or all',
      required: true,
      maxLength: 100,
      missing: 'What should be muted? A name, rule <number>, or all.',
    },
    {
      type: 'text',
      name: 'for',
      description: 'How long: 30m, 2h, 24h, 7d (at most 30d; 1h when not said)',
      maxLength: 12,
    },
  ],
  text: {
    usage: '<name | rule <number> | all> [30m|2h|24h|7d]',
    parse(rest) {
      const words = rest.trim().split(/\s+/).filter(Boolean);
      // The last word is the duration when it reads as one; `mute pepe 2 h` is read as `2h`.
      let duration: string | undefined;
      if (words.length > 1 && DURATION.test(words.at(-1)!)) duration = words.pop();
      else if (words.length > 2 && DURATION.test(words.slice(-2).join(''))) duration = words.splice(-2).join('');
      const target = words.join(' ');
      if (!target) return { ok: false, message: 'What should be muted? A name, rule <number>, or all, then for how long (24h).' };
      return { ok: true, args: { target, ...(duration ? { for: duration } : {}) } };
    },
    format: (args) => [str(args, 'target'), str(args, 'for')].filter(Boolean).join(' '),
  },
  handler: (ctx, args) =>
    withAlerts(ctx, async (service): Promise<Reply> => {
      const typedFor = str(args, 'for') || DEFAULT_FOR;
      const sec = muteSec(typedFor);
      if (sec === undefined) return bad(`'${typedFor.slice(0, 20)}' is not a duration: say 30m, 2h, 24h or 7d.`);
      if (sec < MIN_MUTE_SEC) return bad('A mute lasts 5 minutes at least.');
      if (sec > MAX_MUTE_SEC)
        return bad('A mute lasts 30 days at most. To stop a rule for longer, pause it; it stays paused until resumed.', true);
      const words = targetWords(str(args, 'target'));
      if (!words) return bad('What should be muted? A name, rule <number>, or all.');
      const found = await channelTarget(ctx, service, words, {
        command: 'alert-mute',
        args: (name) => ({ target: name, for: typedFor }),
      });
      if (!found.ok) return found.reply;
      const { platform, channelId, userId, userName } = ctx.caller;
      const now = ctx.now();
      const set = await service.store.mutes.set(
        { platform, channelId, target: found.target, until: now + sec * 1000, by: userName ?? userId, byId: userId },
        now,
      );
      if (!set)
        return {
          kind: 'error',
          message: 'This channel has as many mutes running as it may (50).',
          hint: inline`End some with ${ref('alert-unmute', { target: 'all' })}, or pause the rules that need quiet for long.`,
        };
      const what = targetText(found.target);
      return {
        kind: 'text',
        title: `🔕 Muted ${what} until ${utcTime(set.mute.until)}`,
        text: [
          { user: userId, ...(userName ? { name: userName } : {}) },
          ` muted ${what}${set.replaced ? ` (replacing the mute until ${utcTime(set.replaced.until)})` : ''}. Crossings are recorded, not posted; if one still holds when the mute ends, one message says so. `,
          ...inline`End it early with ${ref('alert-unmute', { target: typedTarget(found.target) })}.`,
        ],
        actions: [{ label: 'Unmute', run: { command: 'alert-unmute', args: { target: typedTarget(found.target) } } }],
      };
    }),
});

function bad(message: string, pauseHint = false): ErrorReply {
  return {
    kind: 'error',
    message,
    hint: pauseHint
      ? inline`For example ${ref('alert-pause', { id: '1' })}; or mute for up to 30 days: ${ref('alert-mute', { target: 'all', for: '30d' })}`
      : inline`For example: ${ref('alert-mute', { target: 'binance', for: '24h' })}`,
  };
}
