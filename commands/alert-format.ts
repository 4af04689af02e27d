import { FORMATS, type AlertFormat } from '../src/alerts/severity.js';
import { inline, ref } from '../src/reply/inline.js';
import type { Reply } from '../src/reply/model.js';
import { withAlerts } from './kit/alert.js';
import { verbSpec } from './kit/group.js';
import { defineCommand, str } from './kit/spec.js';

const MEANING: Record<AlertFormat, string> = {
  compact: 'one line with its buttons, no chart',
  full: 'the whole card with its chart',
};

export default defineCommand({
  ...verbSpec('alert', 'format', 64),
  summary: "How this channel's alerts are posted: compact (one line) or full (card and chart)",
  examples: ['alert format compact', 'alert format full'],
  preconditions: ['alerts', 'managers'],
  options: [
    {
      type: 'choice',
      name: 'format',
      description: 'compact: one line with buttons · full: the card with its chart',
      choices: FORMATS.map((value) => ({ value, label: `${value}: ${MEANING[value]}` })),
      required: true,
      missing: 'Compact or full? compact is one line with its buttons; full is the card with its chart.',
    },
  ],
  handler: (ctx, args) =>
    withAlerts(ctx, async (service): Promise<Reply> => {
      const format = str(args, 'format') as AlertFormat;
      const { platform, channelId, userId, userName } = ctx.caller;
      await service.store.setChannelFormat(platform, channelId, format, userName ?? userId, ctx.now());
      return {
        kind: 'text',
        title: `Alerts in this channel: ${format}`,
        text: inline`Alerts of normal severity are now posted as ${MEANING[format]}. High severity is always posted in full, low always compact; set a rule's with ${ref('alert-severity', { id: '3', severity: 'high' })}.`,
      };
    }),
});
