import type { Reply } from '../reply/model.js';
import type { WorkspaceRef } from '../workspace.js';

/**
 * How an incident reaches its channel and stays one message: posted once, redrawn in place as
 * people act on it (acknowledged, snoozed, resolved, cleared), with further crossings as short
 * replies in its thread. The Slack and Discord adapters implement it; failures are the digests'
 * DeliveryError, so a channel that is gone pauses its rules the way it marks digests failing.
 */
export interface AlertDeliverer {
  readonly platform: 'slack' | 'discord';
  /** Posts the incident's message; resolves with where it is (Slack's `ts`, Discord's message id). */
  post(channelId: string, reply: Reply, workspace?: WorkspaceRef): Promise<string>;
  /** Redraws the message in place. */
  update(channelId: string, ref: string, reply: Reply, workspace?: WorkspaceRef): Promise<void>;
  /** A short follow-up in the message's thread. */
  followUp(channelId: string, ref: string, reply: Reply, workspace?: WorkspaceRef): Promise<void>;
  /**
   * Where the bot's recent message carrying `key` (see `alertKey`) is in the channel (its `ts` or
   * message id), or null when there is none. Asked before posting an incident whose delivery was
   * claimed before: its earlier holder may have died, or its post failed, after the platform took
   * the message. Without it, that gap can post an alert twice.
   */
  find?(channelId: string, key: string, workspace?: WorkspaceRef): Promise<string | null>;
}

/**
 * The key an alert message carries in its footer, "polbot alert #12": the id of the incident
 * leading it, which the store knows before the message is posted. It is how a replica taking a
 * delivery over recognises the message in the channel's history.
 */
export const alertKey = (leadId: number): string => `polbot alert #${leadId}`;

/**
 * Whether `text` (a message as the platform returns it, serialised) carries `key` as a whole: not
 * as the start of a longer word or number, so alert #1's key is not found in alert #12's message.
 * The adapters' channel searches use it for digests' keys as well as alerts'.
 */
export function carriesKey(text: string, key: string): boolean {
  for (let at = text.indexOf(key); at !== -1; at = text.indexOf(key, at + 1)) {
    if (!/[\p{L}\p{N}]/u.test(text.charAt(at + key.length))) return true;
  }
  return false;
}
