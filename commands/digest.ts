import { withDigests } from './kit/digest.js';
import { defineCommand } from './kit/spec.js';

/** `digest` alone: what digests are and the commands that manage them. */
export default defineCommand({
  name: 'digest',
  order: 40,
  words: ['digest'],
  summary: 'Scheduled watchlist digests for this channel (add, list, remove, pause, resume, preview)',
  examples: ['digest'],
  options: [],
  group: 'digest',
  audience: 'asker',
  // Discord lists the digest commands themselves; there is nothing to run without a subcommand.
  discord: false,
  text: {
    usage: '',
    parse: (rest) =>
      rest.trim()
        ? { ok: false, message: `Unknown digest command '${rest.trim().split(' ')[0]!.slice(0, 30)}': use add, list, remove, pause, resume or preview.` }
        : { ok: true, args: {} },
    format: () => '',
  },
  handler: (ctx) =>
    withDigests(ctx, () => ({
      kind: 'text',
      title: 'Scheduled watchlist digests',
      text: 'A digest posts a watchlist to this channel on a schedule: PoL now (lower is safer), the change since the previous digest, ratings, and highlights (downgrades, large PoL moves, new red flags).',
      commands: ctx.catalogue.help('digest').filter((h) => h.usage.command !== 'digest'),
    })),
});
