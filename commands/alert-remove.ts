import { alertRuleCommand } from './kit/alert.js';

export default alertRuleCommand({
  verb: 'remove',
  order: 53,
  aliases: ['delete', 'rm'],
  summary: 'Delete an alert rule and its alerts',
  async run(ctx, { store }, id) {
    const removed = await store.remove(id, ctx.caller.platform, ctx.caller.channelId);
    return removed ? { kind: 'text', title: `Alert rule #${id} removed`, text: 'It will not be checked again.' } : null;
  },
});
