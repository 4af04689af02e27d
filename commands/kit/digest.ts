import type { DigestService } from '../../src/digest/service.js';
import { inline, ref } from '../../src/reply/inline.js';
import type { ErrorReply, Reply } from '../../src/reply/model.js';
import type { Caller } from './context.js';
import type { HandlerContext } from './spec.js';

/** Digest commands need a store, and only a chat channel can receive a digest. */
export function withDigests(ctx: HandlerContext, run: (service: DigestService) => Promise<Reply> | Reply): Promise<Reply> | Reply {
  if (ctx.caller.canPost === false) return notInChannel('Digests');
  if (ctx.digests) return run(ctx.digests);
  // The console and `polbot ask` have no channel to deliver to.
  return {
    kind: 'error',
    message: 'Scheduled digests are delivered to Slack or Discord channels, and this polbot is not connected to either.',
    hint: inline`Run polbot with Slack or Discord configured (see README), or use ${ref('compare', { names: { placeholder: 'names' } })} for several at once.`,
  };
}

/** Said where polbot answers a person but cannot post to the channel itself (a personal install). */
export function notInChannel(what: 'Digests' | 'Alerts'): ErrorReply {
  return {
    kind: 'error',
    message: `${what} are posted to the channel by polbot itself, and polbot is not in this one: here it only answers you.`,
    hint: 'Ask someone who manages the server to add polbot to it, then try again in a channel it can post in.',
  };
}

export function mayManage(caller: Caller, what: 'digests' | 'alert rules' = 'digests'): ErrorReply | undefined {
  if (caller.platform !== 'console' && caller.canManageDigests) return undefined;
  if (caller.platform === 'console')
    return {
      kind: 'error',
      message: `${what.charAt(0).toUpperCase()}${what.slice(1)} post to a Slack or Discord channel: add and manage them from that channel.`,
    };
  return {
    kind: 'error',
    message: `You are not allowed to add, remove, pause or resume ${what} here.`,
    hint:
      caller.platform === 'discord'
        ? `Server managers use the admin ${what === 'digests' ? 'digest' : 'alert'} command.`
        : 'Ask one of the digest admins of this workspace.',
  };
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
