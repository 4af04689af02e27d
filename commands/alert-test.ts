import { asDeliveryError } from '../src/delivery/port.js';
import { alertRuleCommand } from './kit/alert.js';

export default alertRuleCommand({
  verb: 'test',
  order: 56,
  summary: 'Post a sample alert of a rule, marked as a test',
  async run(ctx, service, id) {
    const rule = await service.store.getInChannel(id, ctx.caller.platform, ctx.caller.channelId);
    if (!rule) return null;
    let moved: string | null;
    try {
      moved = await service.test(rule);
    } catch (err) {
      return {
        kind: 'error',
        message: `The test alert could not be posted: ${asDeliveryError(err).reason}.`,
        hint: 'Real alerts of this rule would fail the same way; check that polbot is in this channel.',
      };
    }
    return {
      kind: 'text',
      audience: 'asker',
      title: `Test alert of rule #${id} posted`,
      text: moved
        ? `Demo data: the simulator moved ${moved}. The real alert follows within a minute, with buttons to acknowledge and snooze it and a menu to resolve it.`
        : 'Real alerts of this rule look like it, with buttons to acknowledge and snooze them and a menu to resolve them.',
    };
  },
});
