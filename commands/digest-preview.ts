import { missingDigest } from './kit/digest.js';
import { digestByIdCommand } from './kit/digest-by-id.js';

export default digestByIdCommand({
  verb: 'preview',
  order: 46,
  aliases: ['show'],
  summary: 'Show what a digest would post now',
  managers: false,
  async run(ctx, service, id) {
    const d = await service.store.getInChannel(id, ctx.caller.platform, ctx.caller.channelId);
    return d ? service.preview(d, ctx.now()) : missingDigest(id);
  },
});
