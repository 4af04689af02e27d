import { nextRunText } from '../src/digest/text.js';
import { missingDigest } from './kit/digest.js';
import { digestByIdCommand } from './kit/digest-by-id.js';

export default digestByIdCommand({
  verb: 'resume',
  order: 45,
  aliases: ['unpause'],
  summary: 'Resume a paused or failing digest',
  managers: true,
  async run(ctx, { store }, id) {
    const { platform, channelId } = ctx.caller;
    const now = ctx.now();
    const before = await store.getInChannel(id, platform, channelId);
    if (!before) return missingDigest(id);
    if (before.state === 'active')
      return { kind: 'text', title: `Digest #${id} is already active`, text: `Next digest: ${nextRunText(before, now)}.` };
    const d = await store.resume(id, platform, channelId, now);
    if (!d) return missingDigest(id);
    const was =
      before.state === 'failing'
        ? ` It was failing (${before.stateReason ?? 'unknown reason'}); if the cause remains, it will fail again.`
        : '';
    return { kind: 'text', title: `Digest #${id} resumed`, text: `Next digest: ${nextRunText(d, now)}.${was}` };
  },
});
