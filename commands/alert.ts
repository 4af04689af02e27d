import { CONDITION_GRAMMAR } from '../src/alerts/condition.js';
import { withAlerts } from './kit/alert.js';
import { defineCommand } from './kit/spec.js';

/** `alert` alone: what alerts are and the commands that manage them. */
export default defineCommand({
  name: 'alert',
  order: 50,
  words: ['alert'],
  aliases: [['alerts']],
  summary: 'Alerts for this channel when a watched name crosses a line (add, list, remove, pause, resume, test)',
  examples: ['alert'],
  options: [],
  group: 'alert',
  audience: 'asker',
  // Discord lists the alert commands themselves; there is nothing to run without a subcommand.
  discord: false,
  text: {
    usage: '',
    parse: (rest) =>
      rest.trim()
        ? { ok: false, message: `Unknown alert command '${rest.trim().split(' ')[0]!.slice(0, 30)}': use add, list, remove, pause, resume or test.` }
        : { ok: true, args: {} },
    format: () => '',
  },
  handler: (ctx) =>
    withAlerts(ctx, () => ({
      kind: 'text',
      title: 'Alerts',
      text: `An alert rule watches names for this channel and posts one message when a line is crossed, with buttons to acknowledge, snooze and resolve it; further crossings go in its thread, and it closes by itself when the line is no longer crossed. Conditions: ${CONDITION_GRAMMAR}.`,
      commands: ctx.catalogue.help('alert').filter((h) => h.usage.command !== 'alert'),
    })),
});
