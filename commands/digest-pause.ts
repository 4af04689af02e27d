import { inline, ref } from '../src/reply/inline.js';
import { missingDigest } from './kit/digest.js';
import { digestByIdCommand } from './kit/digest-by-id.js';

export default digestByIdCommand({
  verb: 'pause',
  order: 44,
  summary: 'Pause a digest',
  managers: true,
  async run(ctx, { store }, id) {
    const d = await store.pause(id, ctx.caller.platform, ctx.caller.channelId, ctx.now());
    if (!d) return missingDigest(id);
    return {
      kind: 'text',
      title: `Digest #${id} paused`,
      text: inline`Resume it with ${ref('digest-resume', { id: String(id) })}; slots while paused are not caught up.`,
    };
  },
});
