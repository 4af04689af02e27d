import { once } from 'node:events';
import { DiscordAPIError, Events, Routes } from 'discord.js';
import type { Core } from '../../commands/core/index.js';
import { carriesKey } from '../../src/delivery/port.js';
import type { Logger } from '../../src/log.js';
import type { Reply } from '../../src/reply/model.js';
import { DiscordAdapter, type DiscordClientOptions } from './client.js';
import { describeError } from './errors.js';
import { registerDiscordCommands, type DiscordSettings } from './register.js';

export { registerDiscordCommands, type RegisterResult, type DiscordSettings } from './register.js';
export { discordDeliverer } from './deliverer.js';
export type { DiscordAdapter } from './client.js';

/** The channel's messages searched for a delivery key, newest first. */
const HISTORY_LIMIT = 50;
/** A thread's newest messages searched for a reply's key: the most Discord lists at once. */
const THREAD_LIMIT = 100;

export interface StartDiscordOptions {
  core: Core;
  discord: DiscordSettings;
  log: Logger;
  /** How long start-up waits for the gateway to be ready. */
  readyTimeoutMs?: number;
  quickAnswerMs?: DiscordClientOptions['quickAnswerMs'];
  clientOptions?: DiscordClientOptions['clientOptions'];
}

export interface DiscordHandle {
  /** Posts any Reply to a channel (digests). Works from any shard: it goes through REST. */
  postReply(channelId: string, reply: Reply): Promise<{ id?: string }>;
  /** Redraws a message the bot posted, in place; its files stay. */
  updateReply(channelId: string, messageId: string, reply: Reply): Promise<void>;
  /** Posts in the thread of a message, starting it (named `name`) the first time. */
  threadReply(channelId: string, messageId: string, name: string, reply: Reply): Promise<void>;
  /**
   * Whether one of the bot's recent messages in the channel carries `needle` (a digest's delivery
   * key), so a digest part that reached Discord before a crash is not posted twice. Needs Read Message History.
   */
  hasRecentMessage(channelId: string, needle: string): Promise<boolean>;
  /** The same search, saying where the message is: the id of the newest one carrying `needle` (an alert's key), or null. */
  findRecentMessage(channelId: string, needle: string): Promise<string | null>;
  /** Whether one of the bot's messages in the thread started on `messageId` carries `needle` (an escalation's key). */
  findThreadReply(channelId: string, messageId: string, needle: string): Promise<boolean>;
  /** Shards this process runs, and how many there are in total. */
  readonly shards: { ids: number[]; count: number };
  /**
   * True in exactly one process of a sharded bot (the one running shard 0), so work that must
   * happen once, such as a digest scheduler, can run there only.
   */
  readonly primary: boolean;
  readonly adapter: DiscordAdapter;
  /** For `/healthz`: whether interactions can be answered, and how they arrive. */
  status(): { ok: boolean; detail: string };
  stop(): Promise<void>;
}

/**
 * Logs in and answers interactions until stopped. Under discord.js's ShardingManager the client
 * takes its shard ids and count from the environment the manager sets (SHARDS, SHARD_COUNT), so
 * the same entry point serves one process or many.
 */
export async function startDiscord(options: StartDiscordOptions): Promise<DiscordHandle> {
  const { core, discord, log } = options;
  const adapter = new DiscordAdapter({
    core,
    discord,
    log,
    ...(options.quickAnswerMs !== undefined ? { quickAnswerMs: options.quickAnswerMs } : {}),
    ...(options.clientOptions ? { clientOptions: options.clientOptions } : {}),
  });
  const { client } = adapter;
  adapter.warmLists();

  const timeoutMs = options.readyTimeoutMs ?? 120_000;
  const ready = once(client, Events.ClientReady, { signal: AbortSignal.timeout(timeoutMs) });
  try {
    await client.login(discord.token);
    await ready;
  } catch (err) {
    ready.catch(() => undefined);
    await client.destroy().catch(() => undefined);
    const info = describeError(err);
    const why =
      info.name === 'AbortError' || info.name === 'TimeoutError' ? `the gateway was not ready within ${timeoutMs} ms` : info.message;
    log.error({ error: info }, 'discord start-up failed');
    throw new Error(`Discord: ${why}`);
  }

  await registerForMentions(adapter, discord, log);

  const ids = client.shard?.ids ?? [...client.ws.shards.keys()];
  const count = client.shard?.count ?? Math.max(1, client.ws.shards.size);
  log.info({ user: client.user?.tag, guilds: client.guilds.cache.size, shards: ids, shardCount: count }, 'discord adapter ready');

  let stopped = false;
  return {
    ...deliveryMethods(adapter, () => client.user?.id),
    shards: { ids, count },
    primary: ids.includes(0),
    adapter,
    status: () => ({ ok: client.isReady(), detail: `shards ${ids.join(',')} of ${count}` }),
    async stop() {
      if (stopped) return;
      stopped = true;
      client.removeAllListeners(Events.InteractionCreate);
      await client.destroy();
      log.info('discord adapter stopped');
    },
  };
}

/**
 * The commands are registered (written only when they differ from what Discord has), and their
 * ids let hints name them as mentions. A failure costs the mention chips, not the bot: a hint
 * then names its command in code.
 */
export async function registerForMentions(adapter: DiscordAdapter, discord: DiscordSettings, log: Logger): Promise<void> {
  try {
    const registered = await registerDiscordCommands({ discord, log });
    adapter.mentions.setIds(registered.ids);
  } catch (err) {
    log.warn({ error: describeError(err) }, 'discord commands could not be registered; hints name commands without mentions');
  }
}

/** What a DiscordHandle posts with, the same over the gateway and over HTTP: REST with the bot token. */
export function deliveryMethods(adapter: DiscordAdapter, me: () => string | undefined) {
  const findRecentMessage = recentMessageFinder(adapter, me);
  return {
    postReply: (channelId: string, reply: Reply) => adapter.postReply(channelId, reply),
    updateReply: (channelId: string, messageId: string, reply: Reply) => adapter.updateReply(channelId, messageId, reply),
    threadReply: (channelId: string, messageId: string, name: string, reply: Reply) =>
      adapter.threadReply(channelId, messageId, name, reply),
    findRecentMessage,
    findThreadReply: threadReplyFinder(adapter, me),
    hasRecentMessage: async (channelId: string, needle: string) => (await findRecentMessage(channelId, needle)) !== null,
  };
}

/** A thread started on a message has the message's id; before one is started there is no reply to find. */
function threadReplyFinder(adapter: DiscordAdapter, me: () => string | undefined) {
  return async (_channelId: string, messageId: string, needle: string): Promise<boolean> => {
    const self = me();
    if (!self) throw new Error('the Discord client does not know its own user yet');
    try {
      const messages = (await adapter.client.rest.get(Routes.channelMessages(messageId), {
        query: new URLSearchParams({ limit: String(THREAD_LIMIT) }),
      })) as { author?: { id?: string } }[];
      return messages.some((m) => m.author?.id === self && carriesKey(JSON.stringify(m), needle));
    } catch (err) {
      if (err instanceof DiscordAPIError && err.code === 10003) return false;
      throw err;
    }
  };
}

/** Newest first, as Discord lists them; the bot's own only: someone quoting a key is not a delivery. */
function recentMessageFinder(adapter: DiscordAdapter, me: () => string | undefined) {
  return async (channelId: string, needle: string): Promise<string | null> => {
    const self = me();
    // Without knowing who the bot is, "not found" could be wrong: a failed search is retried, a wrong one posts twice.
    if (!self) throw new Error('the Discord client does not know its own user yet');
    const messages = (await adapter.client.rest.get(Routes.channelMessages(channelId), {
      query: new URLSearchParams({ limit: String(HISTORY_LIMIT) }),
    })) as { id: string; author?: { id?: string } }[];
    return messages.find((m) => m.author?.id === self && carriesKey(JSON.stringify(m), needle))?.id ?? null;
  };
}
