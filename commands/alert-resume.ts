import { inline, ref } from '../src/reply/inline.js';
import { missingRule, withAlerts } from './kit/alert.js';
import { defineCommand, str } from './kit/spec.js';

export default defineCommand({
  name: 'alert-resume',
  order: 55,
  words: ['alert', 'resume'],
  summary: 'Resume an alert rule, or all of this channel’s',
  examples: ['alert resume 3', 'alert resume all'],
  group: 'alert',
  preconditions: ['alerts', 'managers'],
  options: [
    {
      type: 'text',
      name: 'id',
      label: 'rule number',
      description: 'Alert rule number, or all',
      required: true,
      maxLength: 12,
      missing: 'Which rule? Give its number from the alert list, or all.',
    },
  ],
  handler: (ctx, args) =>
    withAlerts(ctx, async ({ store }) => {
      const { platform, channelId } = ctx.caller;
      const typed = str(args, 'id').trim().toLowerCase();
      if (typed === 'all') {
        const resumed = await store.resumeChannel(platform, channelId, ctx.now());
        if (!resumed.length)
          return { kind: 'text', title: 'No paused alert rules in this channel', text: inline`See them with ${ref('alert-list')}.` };
        return {
          kind: 'text',
          title: `${resumed.length} alert ${resumed.length === 1 ? 'rule' : 'rules'} resumed`,
          text: `Rules ${resumed.map((r) => `#${r.id}`).join(', ')} are checked again now.`,
        };
      }
      if (!/^#?\d{1,9}$/.test(typed))
        return {
          kind: 'error',
          message: `'${typed.slice(0, 12)}' is not a rule number.`,
          hint: inline`For example: ${ref('alert-resume', { id: '3' })}`,
        };
      const id = Number(typed.replace('#', ''));
      const rule = await store.resume(id, platform, channelId, ctx.now());
      if (!rule) return missingRule(id);
      return { kind: 'text', title: `Alert rule #${id} resumed`, text: 'It is checked again now, against what it saw last.' };
    }),
});
