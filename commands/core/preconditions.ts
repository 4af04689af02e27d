import { inline, ref } from '../../src/reply/inline.js';
import type { ErrorReply } from '../../src/reply/model.js';
import type { Caller } from '../kit/context.js';
import type { CommandSpec, HandlerContext, Precondition } from '../kit/spec.js';

/**
 * The checks a command declares, run by the core before its handler: a command cannot forget one,
 * and no surface can skip it. The first that fails is the answer; undefined lets the handler run.
 */
export function refusal(spec: CommandSpec, ctx: HandlerContext): ErrorReply | undefined {
  for (const p of spec.preconditions ?? []) {
    const refused = CHECKS[p](ctx, spec);
    if (refused) return refused;
  }
  return undefined;
}

const CHECKS: Record<Precondition, (ctx: HandlerContext, spec: CommandSpec) => ErrorReply | undefined> = {
  digests: (ctx) => {
    if (ctx.caller.canPost === false) return notInChannel('Digests');
    if (ctx.digests) return undefined;
    // The console and `polbot ask` have no channel to deliver to.
    return {
      kind: 'error',
      message: 'Scheduled digests are delivered to Slack, Discord or Telegram chats, and this polbot is not connected to any of them.',
      hint: inline`Run polbot with Slack, Discord or Telegram configured (see README), or use ${ref('compare', { names: { placeholder: 'names' } })} for several at once.`,
    };
  },
  alerts: (ctx) => {
    if (ctx.caller.canPost === false) return notInChannel('Alerts');
    if (ctx.alerts) return undefined;
    return {
      kind: 'error',
      message: 'Alerts are posted to Slack, Discord or Telegram chats, and this polbot is not connected to any of them.',
      hint: inline`Run polbot with Slack, Discord or Telegram configured (see README); here, ${ref('card', { name: { placeholder: 'name' } })} shows where a name stands now.`,
    };
  },
  managers: (ctx, spec) => mayManage(ctx.caller, spec.group === 'alert' ? 'alert rules' : 'digests'),
};

/** Said where polbot answers a person but cannot post to the channel itself (a personal install). */
function notInChannel(what: 'Digests' | 'Alerts'): ErrorReply {
  return {
    kind: 'error',
    message: `${what} are posted to the channel by polbot itself, and polbot is not in this one: here it only answers you.`,
    hint: 'Ask someone who manages the server to add polbot to it, then try again in a channel it can post in.',
  };
}

function mayManage(caller: Caller, what: 'digests' | 'alert rules'): ErrorReply | undefined {
  if (caller.platform !== 'console' && caller.canManageDigests) return undefined;
  if (caller.platform === 'console')
    return {
      kind: 'error',
      message: `${what.charAt(0).toUpperCase()}${what.slice(1)} post to a Slack, Discord or Telegram chat: add and manage them from that chat.`,
    };
  return {
    kind: 'error',
    message: `You are not allowed to add, remove, pause or resume ${what} here.`,
    hint: caller.whoManages
      ? `Ask one of ${caller.whoManages}.`
      : caller.platform === 'discord'
        ? `Server managers use the admin ${what === 'digests' ? 'digest' : 'alert'} command.`
        : 'Ask one of the digest admins of this workspace.',
  };
}
