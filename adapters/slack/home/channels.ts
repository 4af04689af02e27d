import type { webApi } from '@slack/bolt';
import { LRUCache } from 'lru-cache';
import { slackErrorCode } from '../delivery.js';

/**
 * The channels a person is in, as Slack lists them to the bot (`users.conversations`: public
 * channels, and private ones the bot is in too, which is where digests and alerts live). The Home
 * tab shows a channel's digests and alert rules only to its members: a private channel's watchlist
 * is not for the rest of the workspace, and outside a channel nobody could manage them with
 * `/pol digest` either.
 */

export type MemberOf = { ok: true; channels: ReadonlySet<string>; truncated: boolean } | { ok: false; code: string };

/** Slack's largest page; a few pages cover anyone but bots and the most prolific joiners. */
const PAGE = 1_000;
const MAX_PAGES = 5;
/**
 * Home is opened often and a click redraws it: membership is read again after this long. Joining a
 * channel shows within it, and users.conversations (Tier 3) is spared a call per click.
 */
const TTL_MS = 2 * 60_000;

export class ChannelMemberships {
  private readonly cache = new LRUCache<string, MemberOf>({ max: 10_000, ttl: TTL_MS });

  async of(client: webApi.WebClient, teamId: string, userId: string): Promise<MemberOf> {
    const key = `${teamId}:${userId}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const read = await this.read(client, userId);
    // A failure is not remembered: the next look asks Slack again.
    if (read.ok) this.cache.set(key, read);
    return read;
  }

  private async read(client: webApi.WebClient, userId: string): Promise<MemberOf> {
    const channels = new Set<string>();
    let cursor: string | undefined;
    try {
      for (let page = 0; page < MAX_PAGES; page++) {
        const res = await client.users.conversations({
          user: userId,
          types: 'public_channel,private_channel',
          limit: PAGE,
          ...(cursor ? { cursor } : {}),
        });
        for (const c of res.channels ?? []) if (c.id) channels.add(c.id);
        cursor = res.response_metadata?.next_cursor || undefined;
        if (!cursor) return { ok: true, channels, truncated: false };
      }
      return { ok: true, channels, truncated: true };
    } catch (err) {
      return { ok: false, code: slackErrorCode(err) ?? 'unknown_error' };
    }
  }
}
