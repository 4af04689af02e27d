import { DeliveryError, delivering, type Deliverer } from '../../src/delivery/port.js';
import { SlackDeliveryError, type Posted } from './delivery.js';
import type { Reply } from '../../src/reply/model.js';
import type { WorkspaceRef } from '../../src/workspace.js';

/**
 * Slack behind the delivery port: a message posted as the bot (its `ts` is the reference), redrawn
 * with chat.update, followed up in its thread, and found again by its key in the channel's history.
 * Failures say whether a retry can help; reasons are written for the channel's lists, never Slack's raw text.
 */

/** The bot can no longer post in this channel: the digest is marked failing until someone acts. */
const CHANNEL_FAILURES: Record<string, string> = {
  not_in_channel: 'polbot is not a member of this channel (invite it with /invite)',
  channel_not_found: 'the channel no longer exists or polbot cannot see it',
  is_archived: 'the channel is archived',
  restricted_action: 'posting in this channel is restricted by a workspace setting',
  restricted_action_read_only_channel: 'the channel is read-only',
  restricted_action_thread_only_channel: 'the channel only allows replies in threads',
  ekm_access_denied: 'the workspace administrators have suspended access to this channel',
  missing_scope: 'the Slack app lacks a permission; reinstall it from the manifest',
  not_authed: 'the Slack app is not authorized; reinstall it',
  invalid_auth: 'the Slack app token is no longer valid; reinstall it',
  account_inactive: 'the Slack app was uninstalled or deactivated',
  token_revoked: 'the Slack app token was revoked; reinstall it',
  team_access_not_granted: 'the Slack app has no access to this workspace',
};

/** This one message was refused; the next run may well go through. */
const MESSAGE_FAILURES: Record<string, string> = {
  msg_too_long: 'the digest was too long for one Slack message',
  invalid_blocks: 'Slack refused the digest layout',
  invalid_blocks_format: 'Slack refused the digest layout',
  no_text: 'the digest was empty',
  invalid_arguments: 'Slack refused the digest',
  message_not_found: 'the message is gone from the channel (deleted)',
  cant_update_message: 'polbot cannot edit that message',
};

export function toDeliveryError(err: unknown): DeliveryError {
  const code = err instanceof SlackDeliveryError ? err.code : undefined;
  if (code && code in CHANNEL_FAILURES)
    return new DeliveryError(CHANNEL_FAILURES[code]!, { permanent: true, scope: 'channel', cause: err });
  if (code && code in MESSAGE_FAILURES)
    return new DeliveryError(MESSAGE_FAILURES[code]!, { permanent: true, scope: 'message', cause: err });
  // Rate limits were already waited out by the Web API client; network and 5xx errors may pass.
  return new DeliveryError(`Slack did not accept the digest${code ? ` (${code})` : ''}; it will be retried`, {
    permanent: false,
    cause: err,
  });
}

export function slackDeliverer(adapter: {
  postReply(channelId: string, reply: Reply, opts?: { threadTs?: string; workspace?: WorkspaceRef }): Promise<Posted>;
  updateReply(channelId: string, ts: string, reply: Reply, workspace?: WorkspaceRef): Promise<void>;
  findRecentMessage?(channelId: string, needle: string, workspace?: WorkspaceRef): Promise<string | null>;
  findThreadReply?(channelId: string, ts: string, needle: string, workspace?: WorkspaceRef): Promise<boolean>;
}): Deliverer {
  const guarded = <T>(work: () => Promise<T>) => delivering(toDeliveryError, work);
  const { findRecentMessage, findThreadReply } = adapter;
  return {
    platform: 'slack',
    post: (channelId, reply, workspace) =>
      guarded(async () => {
        const { ts } = await adapter.postReply(channelId, reply, workspace ? { workspace } : {});
        // Without its ts the message could never be updated: better said now than at the first click.
        if (!ts) throw new DeliveryError('Slack accepted the message but did not say where it is', { permanent: false });
        return ts;
      }),
    update: (channelId, ts, reply, workspace) => guarded(() => adapter.updateReply(channelId, ts, reply, workspace)),
    followUp: (channelId, ts, reply, workspace) =>
      guarded(async () => {
        await adapter.postReply(channelId, reply, { threadTs: ts, ...(workspace ? { workspace } : {}) });
      }),
    ...(findRecentMessage
      ? { find: (channelId: string, key: string, workspace?: WorkspaceRef) => guarded(() => findRecentMessage(channelId, key, workspace)) }
      : {}),
    ...(findThreadReply
      ? {
          findReply: (channelId: string, ts: string, key: string, workspace?: WorkspaceRef) =>
            guarded(() => findThreadReply(channelId, ts, key, workspace)),
        }
      : {}),
  };
}
