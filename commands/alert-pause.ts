import { inline, ref } from '../src/reply/inline.js';
import { alertRuleCommand } from './kit/alert.js';

export default alertRuleCommand({
  verb: 'pause',
  order: 54,
  summary: 'Pause an alert rule',
  async run(ctx, { store }, id) {
    const rule = await store.pause(id, ctx.caller.platform, ctx.caller.channelId, `paused by ${ctx.caller.userName ?? 'someone'}`);
    if (!rule) return null;
    return {
      kind: 'text',
      title: `Alert rule #${id} paused`,
      text: inline`Resume it with ${ref('alert-resume', { id: String(id) })}; it then compares with what it saw last.`,
    };
  },
});
