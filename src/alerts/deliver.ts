import type { Reply } from '../reply/model.js';

/**
 * How an incident reaches its channel and stays one message: posted once, redrawn in place as
 * people act on it (acknowledged, snoozed, resolved, cleared), with further crossings as short
 * replies in its thread. The Slack and Discord adapters implement it; failures are the digests'
 * DeliveryError, so a channel that is gone pauses its rules the way it marks digests failing.
 */
export interface AlertDeliverer {
  readonly platform: 'slack' | 'discord';
  /** Posts the incident's message; resolves with where it is (Slack's `ts`, Discord's message id). */
  post(channelId: string, reply: Reply): Promise<string>;
  /** Redraws the message in place. */
  update(channelId: string, ref: string, reply: Reply): Promise<void>;
  /** A short follow-up in the message's thread. */
  followUp(channelId: string, ref: string, reply: Reply): Promise<void>;
}
