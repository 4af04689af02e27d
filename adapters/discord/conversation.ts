import { ChannelType, PermissionFlagsBits, type Message } from 'discord.js';
import { LRUCache } from 'lru-cache';
import type { Caller, RunResult } from '../../commands/core/index.js';
import type { Logger } from '../../src/log.js';
import type { Reply } from '../../src/reply/model.js';
import type { DiscordMessage } from './embeds.js';
import { describeError } from './errors.js';
import { discordRoles } from './groups.js';

/**
 * polbot where people talk to it in Discord: a message that mentions the bot, in a channel or a
 * thread, and direct messages to it. A bot receives the content of those two without the
 * privileged Message Content intent, so polbot asks for nothing privileged. What they write goes
 * through the core's `converse` (plain words, or the slash grammar as written), and the answer is a
 * reply to the message, pinging nobody.
 */

export interface ConversationDeps {
  converse(text: string, caller: Caller): Promise<RunResult>;
  render(reply: Reply): DiscordMessage;
  log: Logger;
}

/** Messages answered lately, by id: a gateway replaying events after a resume must not get two answers. */
const SEEN = 10_000;

export class DiscordConversation {
  private readonly seen = new LRUCache<string, true>({ max: SEEN, ttl: 60 * 60 * 1000 });

  constructor(private readonly deps: ConversationDeps) {}

  /** Whether a message is one polbot answers: a person's, new, in a DM or naming the bot. */
  private addressed(m: Message, botId: string): boolean {
    if (m.author.bot || m.system || m.webhookId || m.author.id === botId) return false;
    if (m.channel.type === ChannelType.DM) return true;
    // An explicit mention of the bot, not a reply to one of its messages (which Discord also counts).
    return new RegExp(`<@!?${botId}>`).test(m.content);
  }

  async onMessage(m: Message): Promise<void> {
    const botId = m.client.user?.id;
    if (!botId || !this.addressed(m, botId)) return;
    // Each shard's session gets a message once; a resume may replay it, which this absorbs.
    if (this.seen.has(m.id)) return;
    this.seen.set(m.id, true);
    const text = m.content
      .replace(new RegExp(`<@!?${botId}>`, 'g'), ' ')
      .replace(/\s+/g, ' ')
      .trim();
    const caller: Caller = {
      platform: 'discord',
      userId: m.author.id,
      userName: m.author.globalName ?? m.author.username,
      channelId: m.channelId,
      ...(m.guildId ? { workspaceId: m.guildId, groups: discordRoles(m.client.rest, m.guildId) } : {}),
      // Managing a server's digests and alerts from a mention takes what /pol-alert takes: Manage Server.
      canManageDigests: m.inGuild() && (m.member?.permissions.has(PermissionFlagsBits.ManageGuild) ?? false),
    };
    const { log } = this.deps;
    try {
      if ('sendTyping' in m.channel) void m.channel.sendTyping().catch(() => undefined);
      const result = await this.deps.converse(text || 'help', caller);
      // A reply to a message cannot be ephemeral: what is for the asker alone (a choice, a refusal)
      // is still a reply to their own message, where they asked and where its buttons work. Moving it
      // to a DM would take the conversation away from the thread it belongs to.
      const msg = this.deps.render(result.reply);
      const parts = { embeds: msg.embeds, components: msg.components, files: msg.files };
      await m.reply({
        ...(msg.content ? { content: msg.content } : {}),
        ...parts,
        allowedMentions: { parse: [], repliedUser: false },
      });
      for (const more of msg.more ?? [])
        if ('send' in m.channel)
          await m.channel.send({
            ...(more.content ? { content: more.content } : {}),
            embeds: more.embeds,
            components: more.components,
            files: more.files,
            allowedMentions: { parse: [] },
          });
      log.info({ command: result.command, reply: result.reply.kind, direct: !m.inGuild() }, 'discord: answered in conversation');
    } catch (err) {
      log.warn({ error: describeError(err) }, 'discord: a conversation answer could not be posted');
    }
  }
}
