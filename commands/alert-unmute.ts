import { targetText, type Mute } from '../src/alerts/mutes.js';
import { inline, ref } from '../src/reply/inline.js';
import type { Reply } from '../src/reply/model.js';
import { withAlerts } from './kit/alert.js';
import { verbSpec } from './kit/group.js';
import { channelTarget, targetWords } from './kit/mute.js';
import { defineCommand, str } from './kit/spec.js';

export default defineCommand({
  ...verbSpec('alert', 'unmute', 63),
  summary: 'End a mute early: one name, one rule, or all (every mute in the channel)',
  examples: ['alert unmute binance', 'alert unmute rule 1', 'alert unmute all'],
  preconditions: ['alerts', 'managers'],
  options: [
    {
      type: 'text',
      name: 'target',
      description: 'A muted name, rule <number>, or all',
      required: true,
      maxLength: 100,
      missing: 'What should be unmuted? A name, rule <number>, or all.',
    },
  ],
  handler: (ctx, args) =>
    withAlerts(ctx, async (service): Promise<Reply> => {
      const words = targetWords(str(args, 'target'));
      if (!words) return { kind: 'error', message: 'What should be unmuted? A name, rule <number>, or all.' };
      const { platform, channelId, userId, userName } = ctx.caller;
      const now = ctx.now();
      const person = { by: userName ?? userId, byId: userId };
      // `all` ends every mute of the channel, whatever each covers.
      let ended: Mute[];
      if (words.scope === 'channel') ended = await service.store.mutes.end(platform, channelId, 'all', person, now);
      else {
        const found = await channelTarget(ctx, service, words, { command: 'alert-unmute', args: (name) => ({ target: name }) });
        if (!found.ok) return found.reply;
        ended = await service.store.mutes.end(platform, channelId, found.target, person, now);
      }
      if (!ended.length) {
        const running = await service.store.mutes.active(platform, channelId, now);
        return {
          kind: 'error',
          message: running.length
            ? `That is not muted. Muted in this channel: ${running.map((m) => targetText(m.target)).join(', ')}.`
            : 'Nothing is muted in this channel.',
          hint: inline`See the channel's rules and mutes with ${ref('alert-list')}.`,
        };
      }
      return {
        kind: 'text',
        title: `🔔 Unmuted ${ended.map((m) => targetText(m.target)).join(', ')}`,
        text: [
          { user: userId, ...(userName ? { name: userName } : {}) },
          ' ended the mute. Alerts it held back that still hold are posted here within a minute, in one message.',
        ],
      };
    }),
});
