import { missingDigest } from './kit/digest.js';
import { digestByIdCommand } from './kit/digest-by-id.js';

export default digestByIdCommand({
  verb: 'remove',
  order: 43,
  aliases: ['delete', 'rm'],
  summary: 'Delete a digest',
  managers: true,
  async run(ctx, { store }, id) {
    const removed = await store.remove(id, ctx.caller.platform, ctx.caller.channelId);
    return removed ? { kind: 'text', title: `Digest #${id} removed`, text: 'It will not be sent again.' } : missingDigest(id);
  },
});
