import type { DigestService } from '../../src/digest/service.js';
import { inline, ref } from '../../src/reply/inline.js';
import type { ErrorReply, Reply } from '../../src/reply/model.js';
import type { HandlerContext } from './spec.js';

/**
 * The digest service, for a command that declares the `digests` precondition: the core has
 * refused the command already where there is none, or where polbot cannot post.
 */
export function withDigests(ctx: HandlerContext, run: (service: DigestService) => Promise<Reply> | Reply): Promise<Reply> | Reply {
  if (!ctx.digests) throw new Error('a digest command runs without the digests precondition');
  return run(ctx.digests);
}

export const seeList = () => inline`See this channel’s digests with ${ref('digest-list')}.`;

export function missingDigest(id: number): ErrorReply {
  return { kind: 'error', message: `There is no digest #${id} in this channel.`, hint: seeList() };
}

export function channelFull(max: number): ErrorReply {
  return {
    kind: 'error',
    message: `This channel already has ${max} digests, the most it can have.`,
    hint: inline`Remove one first: see them with ${ref('digest-list')}.`,
  };
}

export const ID_OPTION = {
  type: 'integer',
  name: 'id',
  label: 'digest number',
  description: 'Digest number (see the digest list)',
  required: true,
  min: 1,
  max: 999_999_999,
  missing: 'Which digest? Give its number from the digest list.',
} as const;
