import type {
  APIAttachment,
  APIEmbed,
  APIGuildTextChannel,
  APIMessage,
  MessageFlags,
  APIRole,
  APIUser,
  ChannelFlags,
  ChannelType,
  GatewayGuildCreateDispatchData,
  GuildSystemChannelFlags,
  RoleFlags,
  UserFlags,
} from 'discord.js';
import { snowflake } from './ids.js';
import type { RecordedFile } from './recorder.js';

const GUILD_TEXT = 0;
const PUBLIC_THREAD = 11;

export interface FakeUserInput {
  id?: string;
  username?: string;
  globalName?: string | null;
}

export interface ChannelRecord {
  id: string;
  guildId: string;
  name: string;
  /** For a thread started from a message: the channel it lives in (its id is the message's). */
  parentId?: string;
  /** A DM between the bot and this person (no guild: `guildId` is empty). */
  recipient?: APIUser;
}

export interface RoleRecord {
  id: string;
  name: string;
  /** "Allow anyone to @mention this role": without it, only a poster with Mention Everyone pings it. */
  mentionable: boolean;
  position: number;
}

export interface GuildRecord {
  id: string;
  name: string;
  ownerId: string;
  everyoneRoleId: string;
  /** Roles beyond @everyone, in the order added. */
  roles: RoleRecord[];
}

interface StoredAttachment {
  bytes: Buffer;
  contentType: string;
}

export function userPayload(input: FakeUserInput = {}, bot = false): APIUser {
  const id = input.id ?? snowflake();
  const username = input.username ?? `user${id.slice(-4)}`;
  return {
    id,
    username,
    discriminator: '0',
    global_name: input.globalName === undefined ? (bot ? null : username) : input.globalName,
    avatar: null,
    ...(bot ? { bot: true } : {}),
    flags: 0 as UserFlags,
    public_flags: 0 as UserFlags,
  };
}

/** Guilds, channels and messages as the fake platform currently knows them. */
/** How long Discord remembers an enforced nonce: "the past few minutes". */
const NONCE_WINDOW_MS = 5 * 60_000;

export class World {
  readonly guilds = new Map<string, GuildRecord>();
  readonly channels = new Map<string, ChannelRecord>();
  readonly messages = new Map<string, APIMessage>();
  readonly #nonces = new Map<string, { id: string; at: number }>();
  readonly #attachments = new Map<string, StoredAttachment>();
  /** Origin used in attachment URLs; set once the HTTP server listens. */
  origin = 'http://127.0.0.1';

  constructor(readonly botUser: APIUser) {}

  addGuild(id: string, name = `Guild ${id.slice(-4)}`): GuildRecord {
    const guild: GuildRecord = { id, name, ownerId: snowflake(), everyoneRoleId: id, roles: [] };
    this.guilds.set(id, guild);
    return guild;
  }

  /** A role of the guild, made as Server Settings › Roles makes one. */
  addRole(guildId: string, name: string, opts: { mentionable?: boolean } = {}): RoleRecord {
    const guild = this.guilds.get(guildId);
    if (!guild) throw new Error(`fake Discord: unknown guild ${guildId}`);
    const role: RoleRecord = { id: snowflake(), name, mentionable: opts.mentionable ?? true, position: guild.roles.length + 1 };
    guild.roles.push(role);
    return role;
  }

  /** The guild's roles as GET /guilds/{id}/roles lists them: @everyone (the guild's id) first. */
  rolesPayload(guild: GuildRecord): APIRole[] {
    const role = (id: string, name: string, position: number, mentionable: boolean): APIRole => ({
      id,
      name,
      color: 0,
      colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
      hoist: false,
      position,
      permissions: id === guild.everyoneRoleId ? '2248473465835073' : '0',
      managed: false,
      mentionable,
      flags: 0 as RoleFlags,
    });
    return [role(guild.everyoneRoleId, '@everyone', 0, false), ...guild.roles.map((r) => role(r.id, r.name, r.position, r.mentionable))];
  }

  /**
   * The roles a new message pings, as Discord parses them: each `<@&id>` in its content that is a
   * role of the channel's guild, allowed by `allowed_mentions` (all of them when it is absent,
   * none unless `parse` has `roles` or `roles` lists the id when it is given). Embeds never ping.
   */
  pingedRoles(channelId: string, body: MessageBody): string[] {
    const guildId = this.channels.get(channelId)?.guildId;
    const guild = guildId ? this.guilds.get(guildId) : undefined;
    if (!guild || typeof body.content !== 'string') return [];
    const allowed = body.allowed_mentions as { parse?: string[]; roles?: string[] } | undefined;
    const mentioned = [...body.content.matchAll(/<@&(\d{5,25})>/g)].map((m) => m[1]!);
    return [...new Set(mentioned)].filter(
      (id) =>
        guild.roles.some((r) => r.id === id) &&
        (allowed === undefined || allowed === null || (allowed.parse ?? []).includes('roles') || (allowed.roles ?? []).includes(id)),
    );
  }

  addChannel(id: string, guildId: string, name = `channel-${id.slice(-4)}`): ChannelRecord {
    const channel: ChannelRecord = { id, guildId, name };
    this.channels.set(id, channel);
    return channel;
  }

  /** The DM channel between the bot and a person, as Discord opens one when either writes. */
  addDmChannel(id: string, recipient: APIUser): ChannelRecord {
    const channel: ChannelRecord = { id, guildId: '', name: `dm-${recipient.username}`, recipient };
    this.channels.set(id, channel);
    return channel;
  }

  /**
   * A message a person wrote, stored as Discord keeps it: in a guild channel with the author's
   * member, in a DM without a guild. Its mentions are those its content names (`<@id>`), as
   * Discord parses them for the gateway.
   */
  personMessage(channelId: string, author: APIUser, content: string, mentioned: readonly APIUser[]): APIMessage {
    const message: APIMessage = {
      id: snowflake(),
      channel_id: channelId,
      author,
      content,
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      tts: false,
      mention_everyone: false,
      mentions: mentioned.filter((u) => new RegExp(`<@!?${u.id}>`).test(content)),
      mention_roles: [],
      attachments: [],
      embeds: [],
      components: [],
      pinned: false,
      type: 0,
      flags: 0 as MessageFlags,
    };
    this.messages.set(message.id, message);
    return message;
  }

  defaultChannelOf(guildId: string): ChannelRecord | undefined {
    for (const channel of this.channels.values()) if (channel.guildId === guildId) return channel;
    return undefined;
  }

  /** Starts a thread from a message, as Discord does: the thread's id is the message's id. */
  startThread(message: APIMessage, name: string): ChannelRecord {
    const parent = this.channels.get(message.channel_id)!;
    const thread: ChannelRecord = { id: message.id, guildId: parent.guildId, name, parentId: parent.id };
    this.channels.set(thread.id, thread);
    this.messages.set(message.id, { ...message, thread: this.channelPayload(thread) as unknown as APIMessage['thread'] });
    return thread;
  }

  channelPayload(channel: ChannelRecord): APIGuildTextChannel<ChannelType.GuildText> {
    if (channel.recipient)
      return {
        id: channel.id,
        type: 1,
        recipients: [channel.recipient],
        last_message_id: null,
        flags: 0,
      } as unknown as APIGuildTextChannel<ChannelType.GuildText>;
    return {
      id: channel.id,
      type: (channel.parentId ? PUBLIC_THREAD : GUILD_TEXT) as typeof GUILD_TEXT,
      guild_id: channel.guildId,
      name: channel.name,
      position: 0,
      permission_overwrites: [],
      nsfw: false,
      parent_id: channel.parentId ?? null,
      topic: null,
      last_message_id: null,
      rate_limit_per_user: 0,
      flags: 0 as ChannelFlags,
    };
  }

  guildCreatePayload(guild: GuildRecord, joinedAt: Date): GatewayGuildCreateDispatchData {
    const channels = [...this.channels.values()].filter((c) => c.guildId === guild.id);
    return {
      id: guild.id,
      name: guild.name,
      icon: null,
      splash: null,
      discovery_splash: null,
      owner_id: guild.ownerId,
      afk_channel_id: null,
      afk_timeout: 300,
      verification_level: 1,
      default_message_notifications: 1,
      explicit_content_filter: 2,
      roles: this.rolesPayload(guild),
      emojis: [],
      stickers: [],
      features: [],
      mfa_level: 0,
      application_id: null,
      system_channel_id: channels[0]?.id ?? null,
      system_channel_flags: 0 as GuildSystemChannelFlags,
      rules_channel_id: null,
      vanity_url_code: null,
      description: null,
      banner: null,
      premium_tier: 0,
      premium_subscription_count: 0,
      preferred_locale: 'en-US' as GatewayGuildCreateDispatchData['preferred_locale'],
      public_updates_channel_id: null,
      nsfw_level: 0,
      premium_progress_bar_enabled: false,
      hub_type: null,
      safety_alerts_channel_id: null,
      incidents_data: null,
      region: 'us-east',
      joined_at: joinedAt.toISOString(),
      large: false,
      unavailable: false,
      member_count: 2,
      voice_states: [],
      members: [],
      channels: channels.map((c) => this.channelPayload(c)),
      threads: [],
      presences: [],
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
    };
  }

  storeAttachment(channelId: string, file: RecordedFile, description?: string): APIAttachment {
    const id = snowflake();
    const url = `${this.origin}/attachments/${channelId}/${id}/${encodeURIComponent(file.name)}`;
    this.#attachments.set(`${channelId}/${id}`, { bytes: file.bytes, contentType: file.contentType });
    return {
      id,
      filename: file.name,
      size: file.bytes.length,
      url,
      proxy_url: url,
      content_type: file.contentType,
      ...(description === undefined ? {} : { description }),
    };
  }

  attachmentBytes(channelId: string, attachmentId: string): StoredAttachment | undefined {
    return this.#attachments.get(`${channelId}/${attachmentId}`);
  }

  /** A channel's messages, oldest first (Discord lists newest first; the route reverses). */
  channelMessages(channelId: string): APIMessage[] {
    return [...this.messages.values()].filter((m) => m.channel_id === channelId);
  }

  /** Builds and stores a message the way Discord echoes a create request back. */
  createMessage(channelId: string, body: MessageBody, files: RecordedFile[], extra: Partial<APIMessage> = {}): APIMessage {
    // Discord: with enforce_nonce, a message by the same author with the same nonce in the last few
    // minutes is returned as it is and no new one is created (a client's retry is not a second post).
    const key = body.enforce_nonce && body.nonce !== undefined ? `${channelId}:${String(body.nonce)}` : null;
    const earlier = key ? this.#nonces.get(key) : undefined;
    if (earlier && Date.now() - earlier.at < NONCE_WINDOW_MS && this.messages.has(earlier.id)) return this.messages.get(earlier.id)!;
    const message: APIMessage = {
      id: snowflake(),
      channel_id: channelId,
      author: this.botUser,
      content: body.content ?? '',
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      tts: Boolean(body.tts),
      mention_everyone: false,
      mentions: [],
      mention_roles: this.pingedRoles(channelId, body),
      attachments: this.#newAttachments(channelId, body, files),
      embeds: (body.embeds ?? []).map(normalizeEmbed),
      components: (body.components ?? []) as APIMessage['components'],
      pinned: false,
      type: 0,
      flags: body.flags ?? 0,
      ...extra,
    };
    this.messages.set(message.id, message);
    if (key) this.#nonces.set(key, { id: message.id, at: Date.now() });
    return message;
  }

  /**
   * Applies an edit with Discord's attachment semantics: an `attachments` array lists
   * the existing attachments to keep (by id) plus the new uploads; without it, new
   * uploads are appended and existing ones stay.
   */
  editMessage(message: APIMessage, body: MessageBody, files: RecordedFile[]): APIMessage {
    let attachments = message.attachments;
    if (Array.isArray(body.attachments)) {
      const keep = new Set(body.attachments.map((a) => String(a.id)));
      attachments = attachments.filter((a) => keep.has(a.id));
    }
    const edited: APIMessage = {
      ...message,
      ...(body.content !== undefined ? { content: body.content ?? '' } : {}),
      ...(body.embeds !== undefined ? { embeds: (body.embeds ?? []).map(normalizeEmbed) } : {}),
      ...(body.components !== undefined ? { components: (body.components ?? []) as APIMessage['components'] } : {}),
      ...(body.flags !== undefined ? { flags: body.flags } : {}),
      attachments: [...attachments, ...this.#newAttachments(message.channel_id, body, files)],
      edited_timestamp: new Date().toISOString(),
    };
    this.messages.set(edited.id, edited);
    return edited;
  }

  #newAttachments(channelId: string, body: MessageBody, files: RecordedFile[]): APIAttachment[] {
    return files.map((file, index) => {
      const fileIndex = /^files\[(\d+)\]$/.exec(file.field)?.[1] ?? String(index);
      const meta = body.attachments?.find((a) => String(a.id) === fileIndex);
      return this.storeAttachment(channelId, file, meta?.description);
    });
  }
}

export interface MessageBody {
  content?: string | null;
  tts?: boolean;
  embeds?: APIEmbed[] | null;
  components?: unknown[] | null;
  attachments?: { id: string | number; description?: string; filename?: string }[];
  flags?: number;
  /** At most 25 characters; with `enforce_nonce`, a repeat within minutes returns the first message. */
  nonce?: string | number;
  enforce_nonce?: boolean;
  /** Which mentions in the content may notify; checked as Discord checks it. */
  allowed_mentions?: unknown;
}

function normalizeEmbed(embed: APIEmbed): APIEmbed {
  // Discord types every embed a bot sends as "rich" and echoes that back.
  return { type: 'rich' as APIEmbed['type'], ...embed } as APIEmbed;
}
