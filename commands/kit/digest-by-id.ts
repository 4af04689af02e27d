import type { DigestService } from '../../src/digest/service.js';
import type { Reply } from '../../src/reply/model.js';
import { ID_OPTION, missingDigest, withDigests } from './digest.js';
import { verbSpec } from './group.js';
import { defineCommand, int, type CommandSpec, type HandlerContext } from './spec.js';

/** The shape every `digest <verb> <id>` command shares; each verb is still a module of its own. */
export function digestByIdCommand(o: {
  verb: string;
  order: number;
  aliases?: string[];
  summary: string;
  managers: boolean;
  run(ctx: HandlerContext, service: DigestService, id: number): Promise<Reply>;
}): CommandSpec {
  return defineCommand({
    ...verbSpec('digest', o.verb, o.order, o.aliases),
    summary: o.summary,
    examples: [`digest ${o.verb} 12`],
    preconditions: o.managers ? ['digests', 'managers'] : ['digests'],
    options: [ID_OPTION],
    handler: (ctx, args) =>
      withDigests(ctx, async (service) => {
        const id = int(args, 'id')!;
        return (await o.run(ctx, service, id)) ?? missingDigest(id);
      }),
  });
}
