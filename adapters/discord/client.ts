import { randomBytes } from 'node:crypto';
import {
  ApplicationIntegrationType,
  type AutocompleteInteraction,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  Client,
  type ClientOptions,
  DiscordAPIError,
  Events,
  GatewayIntentBits,
  type Interaction,
  InteractionContextType,
  type MessageContextMenuCommandInteraction,
  MessageFlags,
  Options,
  Partials,
  PermissionFlagsBits,
  RESTEvents,
  Routes,
  type StringSelectMenuInteraction,
} from 'discord.js';
import { LRUCache } from 'lru-cache';
import type { Core, Caller, Invocation, RunResult } from '../../commands/core/index.js';
import type { Logger } from '../../src/log.js';
import { within } from '../../src/time/within.js';
import type { Reply } from '../../src/reply/model.js';
import type { CommandRef } from '../../src/reply/model.js';
import { discordChoices, type DiscordChoice } from './autocomplete.js';
import { CHECK_MESSAGE, completionOf, isGated, toInvocation, type SlashInput } from './commands.js';
import { decodeInvocation, encodeInvocation } from './custom-id.js';
import { DiscordConversation } from './conversation.js';
import { CommandMentions } from './mentions.js';
import { CHOOSE_ID, RUN_ID, notice, renderReply, type DiscordMessage, type RenderOptions } from './embeds.js';
import { describeError, isExpiredInteraction, maskTokens } from './errors.js';
import { discordRoles } from './groups.js';
import { clip, escapeText, plainText } from './escape.js';
import type { DiscordSettings } from './register.js';
import { restOptions } from './rest.js';

export interface DiscordClientOptions {
  core: Core;
  discord: DiscordSettings;
  log: Logger;
  /**
   * How long to wait for the core before deferring. An answer that arrives within it decides
   * the deferral's visibility (ephemeral for choices and errors); a slower one gets a public
   * deferral. Far below Discord's 3 s either way.
   */
  quickAnswerMs?: number;
  /** Extra discord.js options (the REST base comes from `discord.apiUrl`). */
  clientOptions?: Partial<ClientOptions>;
  /**
   * How interactions arrive. `gateway` (the default): the client's own event. `http`: the caller
   * hands each one to `onInteraction`, and an answer ready within `quickAnswerMs` is the initial
   * response itself rather than a deferral edited afterwards.
   */
  transport?: 'gateway' | 'http';
}

const EPHEMERAL = MessageFlags.Ephemeral;
/** Encoded commands up to this length go in the custom id itself (Discord allows 100 with our prefix). */
const MAX_ENCODED = 90;
const STASHED = '~';
const FAILED: RunResult = {
  command: 'invalid',
  reply: { kind: 'error', message: 'Something went wrong on our side. It has been logged.', hint: 'Please try again.' },
};
const GENERIC_FAILURE = '⚠️ Something went wrong showing that answer. Please try again.';

type Answerable = ChatInputCommandInteraction | ButtonInteraction | StringSelectMenuInteraction | MessageContextMenuCommandInteraction;

/** The message as a new post (reply, followUp, channel message). */
function asNew(msg: DiscordMessage) {
  return {
    ...(msg.content ? { content: msg.content } : {}),
    embeds: msg.embeds,
    components: msg.components,
    files: msg.files,
    allowedMentions: msg.allowedMentions,
  };
}

/** The message replacing whatever the edited one held. */
function asEdit(msg: DiscordMessage) {
  return { ...asNew(msg), content: msg.content, attachments: [] };
}

/**
 * The adapter's interaction handling on a discord.js client. It only translates: options to
 * command text for the core, Replies to messages; every decision about data is the core's.
 */
export class DiscordAdapter {
  readonly client: Client;
  private readonly core: Core;
  private readonly log: Logger;
  private readonly quickAnswerMs: number;
  private readonly transport: 'gateway' | 'http';
  // Commands too long for a custom id wait here under a short key. A click outliving its entry
  // (a restart, an hour) is answered with "run it again", never with another entity.
  private readonly stashed = new LRUCache<string, CommandRef>({ max: 5_000, ttl: 60 * 60 * 1000 });
  private readonly render: RenderOptions;
  readonly mentions: CommandMentions;
  private readonly conversation: DiscordConversation;

  constructor(opts: DiscordClientOptions) {
    this.core = opts.core;
    this.log = opts.log;
    this.quickAnswerMs = opts.quickAnswerMs ?? 200;
    this.transport = opts.transport ?? 'gateway';
    this.mentions = new CommandMentions(opts.core.registry.commands);
    this.render = {
      encode: (ref) => {
        const direct = encodeInvocation(ref);
        if (direct.length <= MAX_ENCODED) return direct;
        const key = randomBytes(6).toString('base64url');
        this.stashed.set(key, ref);
        return `${STASHED}${key}`;
      },
      mention: (ref) => this.mentions.ref(ref),
      usage: (help) => this.mentions.usage(help),
      examples: (help) => this.mentions.examples(help),
    };
    this.conversation = new DiscordConversation({
      converse: (text, caller) =>
        this.core.converse(text, caller).catch((err: unknown) => {
          this.log.error({ error: describeError(err) }, 'command core failed');
          return FAILED;
        }),
      render: (reply) => this.renderMessage(reply),
      log: this.log,
    });
    this.client = new Client({
      // Slash commands and components arrive whatever the intents; Guilds keeps the guild and
      // channel caches the client needs. Guild and direct messages bring the messages that mention
      // polbot and its DMs, whose content a bot receives without the privileged Message Content
      // intent; nothing privileged is asked for. A DM's channel arrives unknown: Partials.Channel.
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages],
      partials: [Partials.Channel],
      allowedMentions: { parse: [] },
      rest: restOptions(opts.discord),
      // polbot never reads messages back; caching them would only cost memory in large guilds.
      makeCache: Options.cacheWithLimits({ ...Options.DefaultMakeCacheSettings, MessageManager: 0 }),
      ...opts.clientOptions,
    });
    this.wire();
  }

  /** The core promises never to throw; a deferral left "thinking" forever would be worse than a check. */
  private run(invocation: Invocation, caller: Caller): Promise<RunResult> {
    return this.core.invoke(invocation, caller).catch((err: unknown) => {
      this.log.error({ error: describeError(err) }, 'command core failed');
      return FAILED;
    });
  }

  /** A component's command: encoded in its custom id or value, or kept on our side under a key. */
  private decode(value: string): Invocation | undefined {
    if (value.startsWith(STASHED)) {
      const ref = this.stashed.get(value.slice(STASHED.length));
      // Through the same encoding as a direct value, so both arrive with the same argument shapes.
      return ref ? decodeInvocation(encodeInvocation(ref)) : undefined;
    }
    return decodeInvocation(value);
  }

  private renderMessage(reply: Reply): DiscordMessage {
    return renderReply(reply, this.render);
  }

  /** Loads the entity lists the source can give in the background, so autocomplete has something to offer. */
  warmLists(): void {
    for (const kind of ['project', 'exchange'] as const) if (this.core.canList(kind)) void this.core.refreshList(kind);
  }

  private wire(): void {
    const { client, log } = this;
    if (this.transport === 'gateway') client.on(Events.InteractionCreate, (i) => void this.onInteraction(i));
    // Messages come over the gateway only: in interactions-only (HTTP) mode mentions and DMs are not seen.
    if (this.transport === 'gateway') client.on(Events.MessageCreate, (m) => void this.conversation.onMessage(m));
    client.on(Events.Error, (err) => log.error({ error: describeError(err) }, 'discord client error'));
    client.on(Events.Warn, (m) => log.warn({ detail: maskTokens(m) }, 'discord client warning'));
    client.on(Events.Debug, (m) => log.trace({ detail: maskTokens(m) }, 'discord debug'));
    client.on(Events.ShardReady, (shard) => log.info({ shard }, 'discord shard ready'));
    client.on(Events.ShardDisconnect, (ev, shard) => log.warn({ shard, code: ev.code }, 'discord gateway closed'));
    client.on(Events.ShardReconnecting, (shard) => log.info({ shard }, 'discord gateway reconnecting'));
    client.on(Events.ShardResume, (shard, replayed) => log.info({ shard, replayed }, 'discord gateway resumed'));
    client.on(Events.ShardError, (err, shard) => log.warn({ shard, error: describeError(err) }, 'discord gateway error'));
    client.on(Events.Invalidated, () => log.error('discord session invalidated; the client has stopped'));
    client.rest.on(RESTEvents.RateLimited, (r) =>
      log.warn({ route: r.route, method: r.method, retryAfterMs: r.retryAfter, global: r.global }, 'discord rate limit'),
    );
  }

  /** Answers one interaction; never rejects. */
  async onInteraction(i: Interaction): Promise<void> {
    try {
      if (i.isAutocomplete()) return await this.onAutocomplete(i);
      if (i.isChatInputCommand()) return await this.onCommand(i);
      if (i.isMessageContextMenuCommand() && i.commandName === CHECK_MESSAGE) return await this.onCheckMessage(i);
      if (i.isStringSelectMenu() && (i.customId === CHOOSE_ID || i.customId.startsWith(`${CHOOSE_ID}:`))) return await this.onChoose(i);
      if ((i.isButton() || i.isStringSelectMenu()) && (i.customId === RUN_ID || i.customId.startsWith(`${RUN_ID}:`)))
        return await this.onRun(i);
    } catch (err) {
      // Nothing may escape into discord.js's emitter: an unhandled rejection would end the process.
      this.log.error({ error: describeError(err), type: i.type }, 'discord interaction failed');
    }
  }

  // -------------------------------------------------------------------------------------------
  // Autocomplete

  private async onAutocomplete(i: AutocompleteInteraction): Promise<void> {
    const focused = i.options.getFocused(true);
    const asked = completionOf(this.core.registry.commands, slashInput(i), focused.name);
    const choices: DiscordChoice[] = asked
      ? discordChoices(await this.core.autocomplete(asked.command, asked.option, String(focused.value ?? ''), asked.args))
      : [];
    await i.respond(choices).catch((err: unknown) => this.logSendFailure(err, 'autocomplete'));
  }

  // -------------------------------------------------------------------------------------------
  // Slash commands and follow-up buttons

  private async onCommand(i: ChatInputCommandInteraction): Promise<void> {
    const input = slashInput(i);
    const invocation = toInvocation(this.core.registry.commands, input);
    if (!invocation) {
      // A command registered by an older version, still shown by a client that has not refreshed.
      const msg = this.renderMessage({
        kind: 'error',
        message: 'That command is not available any more.',
        hint: ['See ', { ref: { command: 'help' } }, '.'],
      });
      await i.reply({ ...asNew(msg), flags: EPHEMERAL }).catch((err: unknown) => this.logSendFailure(err, 'usage reply'));
      return;
    }
    await this.answer(i, invocation, `/${input.command} ${input.subcommand ?? ''}`.trim(), commandCaller(i));
  }

  /** "Check with polbot" on a message: the names in its text and embeds, answered to the person alone. */
  private async onCheckMessage(i: MessageContextMenuCommandInteraction): Promise<void> {
    const m = i.targetMessage;
    const text = [m.content, ...m.embeds.flatMap((e) => [e.title, e.description, ...e.fields.flatMap((f) => [f.name, f.value])])]
      .filter(Boolean)
      .join('\n');
    await this.answer(i, { command: 'check', args: { text: text.slice(0, 4000) || ' ' } }, 'check message', whoAndWhere(i) as Caller);
  }

  private async onRun(i: ButtonInteraction | StringSelectMenuInteraction): Promise<void> {
    const invocation = this.decode(i.isButton() ? i.customId.slice(RUN_ID.length + 1) : (i.values[0] ?? ''));
    if (!invocation) {
      await i.reply({ ...asNew(notice('⚠️ That button no longer works. Run the command again.')), flags: EPHEMERAL });
      return;
    }
    await this.answer(i, invocation, 'follow-up', componentCaller(i));
  }

  /**
   * Runs a command and answers it. The core is given a moment to answer: when it does, the
   * deferral is made ephemeral or public to match. When it does not, a public deferral goes
   * out, and a choice or error arriving later replaces it with an ephemeral follow-up (a
   * deferral's visibility cannot be changed afterwards).
   */
  private async answer(i: Answerable, invocation: Invocation, label: string, caller: Caller): Promise<void> {
    const started = Date.now();
    const pending = this.run(invocation, caller);
    const early = await within(pending, this.quickAnswerMs);
    if (early && this.transport === 'http') return this.replyAtOnce(i, early, label, started);
    const deferredPrivate = early ? this.renderMessage(early.reply).private : false;
    try {
      await i.deferReply(deferredPrivate ? { flags: EPHEMERAL } : {});
    } catch (err) {
      this.logSendFailure(err, 'deferral');
      return;
    }
    this.log.debug({ command: label, deferredMs: Date.now() - started, ephemeral: deferredPrivate }, 'discord interaction deferred');

    const result = early ?? (await pending);
    const msg = this.renderMessage(result.reply);
    try {
      if (msg.private && !deferredPrivate) {
        await i.deleteReply();
        await i.followUp({ ...asNew(msg), flags: EPHEMERAL });
      } else {
        await i.editReply(asEdit(msg));
      }
      await this.followWithMore(i, msg);
      this.log.debug(
        { command: label, kind: result.reply.kind, core: result.command, ms: Date.now() - started },
        'discord interaction answered',
      );
    } catch (err) {
      this.logSendFailure(err, 'answer');
      // The interaction's token lasts 15 minutes; an answer for the channel still reaches it with the bot's own token.
      if (isExpiredInteraction(err) && !msg.private && i.channelId && caller.canPost !== false) {
        await this.postReply(i.channelId, result.reply).then(
          () => this.log.info({ command: label }, 'discord interaction expired; answer posted to the channel instead'),
          (e: unknown) => this.logSendFailure(e, 'answer after expiry'),
        );
        return;
      }
      await i.followUp({ ...asNew(notice(GENERIC_FAILURE)), flags: EPHEMERAL }).catch(() => undefined);
    }
  }

  /** What one message could not hold, as follow-ups seen by the same people. */
  private async followWithMore(i: Answerable, msg: DiscordMessage): Promise<void> {
    for (const m of msg.more ?? []) await i.followUp({ ...asNew(m), ...(m.private ? { flags: EPHEMERAL } : {}) });
  }

  /**
   * Over HTTP the initial response travels back on Discord's own request, so an answer that is
   * already there goes out whole (files included) and nothing is left to edit.
   */
  private async replyAtOnce(i: Answerable, result: RunResult, label: string, started: number): Promise<void> {
    const msg = this.renderMessage(result.reply);
    try {
      await i.reply({ ...asNew(msg), ...(msg.private ? { flags: EPHEMERAL } : {}) });
      await this.followWithMore(i, msg);
      this.log.debug(
        { command: label, kind: result.reply.kind, core: result.command, ms: Date.now() - started },
        'discord interaction answered',
      );
    } catch (err) {
      this.logSendFailure(err, 'answer');
    }
  }

  // -------------------------------------------------------------------------------------------
  // Choosing among candidates

  private async onChoose(i: StringSelectMenuInteraction): Promise<void> {
    const picked = i.values[0] ?? '';
    const command = this.decode(picked);
    const option = i.component.options.find((o) => o.value === picked);
    const label = option ? escapeText(clip(option.label, 80)) : 'your choice';

    if (!command) {
      await i
        .update(asEdit(notice('⚠️ That choice has expired. Run the command again.')))
        .catch((err: unknown) => this.logSendFailure(err, 'expired choice'));
      return;
    }
    // Acknowledged at once, and the menu goes away so the same choice is not made twice.
    try {
      await i.update(asEdit(notice(`Looking up ${label}…`)));
    } catch (err) {
      this.logSendFailure(err, 'choice acknowledgement');
      return;
    }
    const { reply } = await this.run(command, componentCaller(i));
    const msg = this.renderMessage(reply);
    try {
      if (msg.private) {
        // Another choice (a compare with a second unclear name) or an error: still only for them.
        await i.editReply(asEdit(msg));
      } else {
        // Only the chosen entity is shown to the channel; the candidates never were.
        await i.followUp(asNew(msg));
        await i.editReply(asEdit(notice(`Shown: ${label}`)));
      }
    } catch (err) {
      this.logSendFailure(err, 'choice');
      await i.editReply(asEdit(notice(GENERIC_FAILURE))).catch(() => undefined);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Posting without an interaction (digests)

  async postReply(channelId: string, reply: Reply): Promise<{ id?: string }> {
    if (!/^\d{5,25}$/.test(channelId)) throw new TypeError(`not a Discord channel id: ${channelId.slice(0, 40)}`);
    const msg = this.renderMessage(reply);
    // Straight to REST: under sharding the channel's guild may belong to another shard's cache.
    const res = (await this.client.rest.post(Routes.channelMessages(channelId), {
      body: {
        ...(msg.content ? { content: msg.content } : {}),
        embeds: msg.embeds,
        components: msg.components,
        allowed_mentions: msg.allowedMentions,
        attachments: msg.files.map((f, id) => ({ id, filename: f.name, ...(f.description ? { description: f.description } : {}) })),
        // discord.js sends a request again after a timeout or a 5xx; with an enforced nonce Discord
        // returns the message it already made instead of posting a second (digests, alerts).
        nonce: randomBytes(12).toString('hex').slice(0, 25),
        enforce_nonce: true,
      },
      files: msg.files.map((f) => ({ name: f.name, data: f.attachment, contentType: 'image/png' })),
    })) as { id?: string };
    return res.id ? { id: res.id } : {};
  }

  /**
   * Redraws a message the bot posted, in place. No files go with the edit: the ones posted with
   * the message stay, and the embed's `attachment://` image keeps pointing at its chart.
   */
  async updateReply(channelId: string, messageId: string, reply: Reply): Promise<void> {
    const msg = this.renderMessage(reply);
    await this.client.rest.patch(Routes.channelMessage(channelId, messageId), {
      body: { content: msg.content ?? '', embeds: msg.embeds, components: msg.components, allowed_mentions: msg.allowedMentions },
    });
  }

  /** Posts in the thread of a message, starting the thread (named `name`) the first time. */
  async threadReply(channelId: string, messageId: string, name: string, reply: Reply): Promise<void> {
    try {
      await this.client.rest.post(Routes.threads(channelId, messageId), {
        body: { name: plainText(name).slice(0, 100) || 'polbot', auto_archive_duration: 1440 },
      });
    } catch (err) {
      // The thread was started by an earlier follow-up: it has the message's id.
      if (!(err instanceof DiscordAPIError && err.code === 160004)) throw err;
    }
    await this.postReply(messageId, reply);
  }

  private logSendFailure(err: unknown, what: string): void {
    if (isExpiredInteraction(err)) {
      this.log.warn({ what, error: describeError(err) }, 'discord interaction expired before it could be answered');
      return;
    }
    this.log.error({ what, error: describeError(err) }, 'discord request failed');
  }
}

/**
 * Who asked, where. Discord itself gates /pol-digest and /pol-alert (Manage Server by default,
 * adjustable per server under Integrations), so arriving through one is the permission to manage
 * digests and alert rules; /pol never carries it.
 */
export function commandCaller(i: ChatInputCommandInteraction): Caller {
  return { ...whoAndWhere(i), canManageDigests: isGated(i.commandName) && i.inGuild() };
}

/**
 * Buttons and menus carry no command permissions of their own, so a digest command reached
 * through one needs the permission /pol-digest requires by default.
 */
export function componentCaller(i: ButtonInteraction | StringSelectMenuInteraction): Caller {
  return { ...whoAndWhere(i), canManageDigests: i.inGuild() && i.memberPermissions.has(PermissionFlagsBits.ManageGuild) };
}

/** The person (named as Discord shows them, for an alert's "acknowledged by"), the channel and the server. */
function whoAndWhere(i: Answerable): Omit<Caller, 'canManageDigests'> {
  return {
    platform: 'discord',
    userId: i.user.id,
    userName: i.user.globalName ?? i.user.username,
    channelId: i.channelId,
    ...(i.guildId ? { workspaceId: i.guildId, groups: discordRoles(i.client.rest, i.guildId) } : {}),
    ...(botCanPost(i) ? {} : { canPost: false }),
  };
}

/**
 * Whether polbot can post in the interaction's channel with its own token: in a server that added
 * it, or in a DM with it. Reached through a person's own install elsewhere, it can only answer.
 */
function botCanPost(i: Answerable): boolean {
  if (i.context === InteractionContextType.BotDM) return true;
  if (i.context === InteractionContextType.PrivateChannel) return false;
  return !i.guildId || i.authorizingIntegrationOwners?.[ApplicationIntegrationType.GuildInstall] === i.guildId;
}

/** The subcommand and its options as plain values, whatever discord.js wraps them in. */
export function slashInput(i: ChatInputCommandInteraction | AutocompleteInteraction): SlashInput {
  const subcommand = i.options.getSubcommand(false);
  const top = i.options.data;
  const leaf = subcommand ? (top.find((o) => o.name === subcommand)?.options ?? []) : top;
  const options: Record<string, string | number | boolean> = {};
  for (const o of leaf) if (o.value !== undefined && o.value !== null) options[o.name] = o.value;
  return { command: i.commandName, subcommand, options };
}
