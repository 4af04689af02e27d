import type {
  APIApplicationCommandInteractionDataOption,
  APIApplicationCommandOption,
  APIInteractionGuildMember,
  APIMessage,
  APIUser,
  GuildMemberFlags,
} from 'discord.js';
import type { CommandStore } from './commands.js';
import { randomToken, snowflake } from './ids.js';
import type { RecordedCall, RecordedFile, Recorder } from './recorder.js';
import { type FakeUserInput, type World, userPayload } from './world.js';

export const INTERACTION = { applicationCommand: 2, component: 3, autocomplete: 4 } as const;

// VIEW_CHANNEL | SEND_MESSAGES | EMBED_LINKS | ATTACH_FILES | READ_MESSAGE_HISTORY |
// USE_APPLICATION_COMMANDS: what an ordinary member and a freshly invited bot hold.
export const DEFAULT_PERMISSIONS = String((1n << 10n) | (1n << 11n) | (1n << 14n) | (1n << 15n) | (1n << 16n) | (1n << 31n));

export type OptionValue = string | number | boolean;
/** Either `{ name: value }` (types taken from the registered command when there is one) or raw API options. */
export type OptionsInput = Record<string, OptionValue> | APIApplicationCommandInteractionDataOption[];

export interface InteractionContextInput {
  guildId?: string;
  channelId?: string;
  user?: FakeUserInput;
  /** Member permission bitfield (decimal string or bigint). */
  memberPermissions?: string | bigint;
  appPermissions?: string | bigint;
  locale?: string;
  /**
   * How the app reached this person: added to the server (`guild`, the default) or by the person
   * to their own account (`user`); with `user`, a server the bot is not in may be named.
   */
  install?: 'guild' | 'user';
}

export interface CommandInput extends InteractionContextInput {
  name: string;
  options?: OptionsInput;
  subcommand?: string;
  subcommandGroup?: string;
}

export interface MessageCommandInput extends InteractionContextInput {
  name: string;
  message: APIMessage;
}

export interface AutocompleteInput extends CommandInput {
  /** Name of the option being typed; omit when `options` is a raw list that already marks one `focused`. */
  focused?: string;
}

export interface ComponentInput extends InteractionContextInput {
  custom_id: string;
  /** 2 = button, 3 = string select. */
  component_type: 2 | 3;
  values?: string[];
  /** The message carrying the component; a bot message with a matching component is made up when omitted. */
  message?: APIMessage;
}

export interface RecordedCallback {
  type: number;
  data: unknown;
  files: RecordedFile[];
  call: RecordedCall;
}

/** What the platform tracks per interaction token. */
export interface InteractionState {
  id: string;
  token: string;
  type: number;
  commandType: number | null;
  channelId: string;
  createdAt: number;
  acknowledged: boolean;
  /** Message behind `@original`: the reply, or for components the message that carried the component. */
  originalMessageId: string | null;
  followupIds: Set<string>;
  /**
   * Delivered over HTTP (an Interactions Endpoint URL is set): the exchange with the app's
   * endpoint, whose response is the initial response. Until it settles, webhook requests for the
   * interaction wait for it, as Discord reads the response before it knows the webhook.
   */
  http?: Promise<HttpExchange>;
  /** Why Discord would show "This interaction failed" (over HTTP: no valid response in time). */
  failure?: string;
}

/** Discord's POST of an interaction to the app's endpoint, and what came back. */
export interface HttpExchange {
  /** The HTTP status; 0 when nothing came back within the deadline. */
  status: number;
  contentType: string;
  /** The JSON body, or the `payload_json` part of a multipart/form-data one. */
  body: unknown;
  files: RecordedFile[];
  /** From sending the request to the last byte of the response. */
  ms: number;
  failure?: string;
}

export interface InteractionHandle {
  id: string;
  token: string;
  payload: Record<string, unknown>;
  /** Resolves with the accepted initial response (the `/callback` request). */
  callback(timeoutMs?: number): Promise<RecordedCallback>;
  /** Accepted `PATCH .../messages/@original` calls so far. */
  originalEdits(): RecordedCall[];
  /** Resolves with the first accepted `@original` edit matching `predicate` (any edit by default). */
  waitForEdit(timeoutMs?: number, predicate?: (call: RecordedCall) => boolean): Promise<RecordedCall>;
  followups(): RecordedCall[];
  waitForFollowup(timeoutMs?: number, predicate?: (call: RecordedCall) => boolean): Promise<RecordedCall>;
  /** The `@original` message as the platform currently stores it. */
  original(): APIMessage | undefined;
  /** Over HTTP: the exchange with the app's endpoint (rejects for an interaction sent over the gateway). */
  httpResponse(): Promise<HttpExchange>;
  /** Set when the interaction failed ("This interaction failed"), with the reason. */
  failure(): string | undefined;
}

interface Deps {
  applicationId: string;
  world: World;
  commands: CommandStore;
  recorder: Recorder;
  defaultUser: APIUser;
  /** Sends the interaction to the app: over the gateway, or to its endpoint over HTTP (setting `state.http`). */
  dispatch: (payload: Record<string, unknown>, state: InteractionState) => void;
  /** The fake's clock, which tests may move on to reach Discord's time limits. */
  now: () => number;
}

const ADMINISTRATOR = 1n << 3n;

export class Interactions {
  readonly byToken = new Map<string, InteractionState>();

  constructor(private readonly deps: Deps) {}

  sendCommand(input: CommandInput): InteractionHandle {
    const guildId = this.#guildId(input);
    const registered = this.deps.commands.findByName(input.name, guildId);
    // Discord offers a command with default_member_permissions only to members holding them (or
    // Administrator): anyone else cannot send it at all, so no interaction ever reaches the app.
    const needed = registered?.default_member_permissions ? BigInt(registered.default_member_permissions) : 0n;
    const held = BigInt(input.memberPermissions ?? DEFAULT_PERMISSIONS);
    if (needed && (held & needed) !== needed && (held & ADMINISTRATOR) === 0n) {
      throw new Error(`fake Discord: /${input.name} is not available to a member without permissions ${needed}`);
    }
    const data = {
      id: registered?.id ?? snowflake(),
      type: 1,
      name: input.name,
      ...(guildId && registered?.guild_id ? { guild_id: guildId } : {}),
      options: buildOptions(input, registered?.options, undefined),
    };
    return this.#send(INTERACTION.applicationCommand, 1, data, input);
  }

  /** A message command (a context menu entry under Apps) used on `message`. */
  sendMessageCommand(input: MessageCommandInput): InteractionHandle {
    const guildId = this.#guildId(input);
    const registered = this.deps.commands.findByName(input.name, guildId, 3);
    if (!registered) throw new Error(`fake Discord: no message command '${input.name}' is registered`);
    const data = {
      id: registered.id,
      type: 3,
      name: input.name,
      target_id: input.message.id,
      resolved: { messages: { [input.message.id]: input.message } },
    };
    return this.#send(INTERACTION.applicationCommand, 3, data, { ...input, channelId: input.channelId ?? input.message.channel_id });
  }

  sendAutocomplete(input: AutocompleteInput): InteractionHandle {
    const guildId = this.#guildId(input);
    const registered = this.deps.commands.findByName(input.name, guildId);
    const data = {
      id: registered?.id ?? snowflake(),
      type: 1,
      name: input.name,
      options: buildOptions(input, registered?.options, input.focused),
    };
    return this.#send(INTERACTION.autocomplete, 1, data, input);
  }

  sendComponent(input: ComponentInput): InteractionHandle {
    const guildId = this.#guildId(input);
    const channelId = this.#channelId(input, guildId);
    const message = input.message ?? this.#componentMessage(channelId, input);
    this.deps.world.messages.set(message.id, message);
    const data =
      input.component_type === 3
        ? { custom_id: input.custom_id, component_type: 3, values: input.values ?? [] }
        : { custom_id: input.custom_id, component_type: 2 };
    return this.#send(INTERACTION.component, null, data, { ...input, channelId }, message);
  }

  #send(type: number, commandType: number | null, data: object, input: InteractionContextInput, message?: APIMessage): InteractionHandle {
    const { world, applicationId } = this.deps;
    const guildId = this.#guildId(input);
    const channelId = this.#channelId(input, guildId);
    const channel = world.channels.get(channelId) ?? world.addChannel(channelId, guildId);
    const user = input.user ? userPayload(input.user) : this.deps.defaultUser;
    const id = snowflake();
    const token = `aW50ZXJhY3Rpb246${randomToken(96)}`;

    const member: APIInteractionGuildMember = {
      user,
      roles: [],
      permissions: String(input.memberPermissions ?? DEFAULT_PERMISSIONS),
      joined_at: new Date(Date.now() - 86_400_000).toISOString(),
      premium_since: null,
      deaf: false,
      mute: false,
      flags: 0 as GuildMemberFlags,
      pending: false,
      nick: null,
      avatar: null,
      communication_disabled_until: null,
    };
    const payload: Record<string, unknown> = {
      id,
      application_id: applicationId,
      type,
      data,
      guild: { id: guildId, locale: 'en-US', features: [] },
      guild_id: guildId,
      channel: { ...world.channelPayload(channel) },
      channel_id: channelId,
      member,
      token,
      version: 1,
      app_permissions: String(input.appPermissions ?? DEFAULT_PERMISSIONS),
      locale: input.locale ?? 'en-US',
      guild_locale: 'en-US',
      entitlements: [],
      // Discord names who authorised the app here: the server (0) or the person (1).
      authorizing_integration_owners: input.install === 'user' ? { '1': user.id } : { '0': guildId },
      context: 0,
      attachment_size_limit: 10 * 1024 * 1024,
      ...(message ? { message } : {}),
    };

    const state: InteractionState = {
      id,
      token,
      type,
      commandType,
      channelId,
      createdAt: this.deps.now(),
      acknowledged: false,
      originalMessageId: message?.id ?? null,
      followupIds: new Set(),
    };
    this.byToken.set(token, state);
    this.deps.dispatch(payload, state);
    return this.#handle(id, token, payload);
  }

  #handle(id: string, token: string, payload: Record<string, unknown>): InteractionHandle {
    const { recorder, applicationId, world } = this.deps;
    const ok = (c: RecordedCall) => c.status >= 200 && c.status < 300;
    const isCallback = (c: RecordedCall) => c.method === 'POST' && c.path === `/interactions/${id}/${token}/callback` && ok(c);
    const isEdit = (c: RecordedCall) =>
      c.method === 'PATCH' && c.path === `/webhooks/${applicationId}/${token}/messages/@original` && ok(c);
    const isFollowup = (c: RecordedCall) => c.method === 'POST' && c.path === `/webhooks/${applicationId}/${token}` && ok(c);
    return {
      id,
      token,
      payload,
      callback: async (timeoutMs = 5_000) => {
        const call = await recorder.waitFor(isCallback, timeoutMs);
        const body = (call.body ?? {}) as { type?: number; data?: unknown };
        return { type: Number(body.type), data: body.data, files: call.files, call };
      },
      originalEdits: () => recorder.calls(isEdit),
      waitForEdit: (timeoutMs = 5_000, predicate = () => true) => recorder.waitFor((c) => isEdit(c) && predicate(c), timeoutMs),
      followups: () => recorder.calls(isFollowup),
      waitForFollowup: (timeoutMs = 5_000, predicate = () => true) => recorder.waitFor((c) => isFollowup(c) && predicate(c), timeoutMs),
      original: () => {
        const messageId = this.byToken.get(token)?.originalMessageId;
        return messageId ? world.messages.get(messageId) : undefined;
      },
      httpResponse: () =>
        this.byToken.get(token)?.http ?? Promise.reject(new Error('fake Discord: this interaction went over the gateway')),
      failure: () => this.byToken.get(token)?.failure,
    };
  }

  #guildId(input: InteractionContextInput): string {
    if (input.guildId && !this.deps.world.guilds.has(input.guildId) && input.install !== 'user') {
      throw new Error(`fake Discord: the bot is not in server ${input.guildId}; only a user install reaches it there`);
    }
    const guildId = input.guildId ?? this.deps.world.guilds.keys().next().value;
    if (!guildId) throw new Error('fake Discord has no guild; pass guildIds to startFakeDiscord or guildId here');
    return guildId;
  }

  #channelId(input: InteractionContextInput, guildId: string): string {
    return input.channelId ?? this.deps.world.defaultChannelOf(guildId)?.id ?? this.deps.world.addChannel(snowflake(), guildId).id;
  }

  #componentMessage(channelId: string, input: ComponentInput): APIMessage {
    const component =
      input.component_type === 3
        ? { type: 3, custom_id: input.custom_id, options: (input.values ?? ['a']).map((v) => ({ label: v, value: v })) }
        : { type: 2, custom_id: input.custom_id, style: 1, label: input.custom_id };
    return this.deps.world.createMessage(channelId, { content: 'Pick one', components: [{ type: 1, components: [component] }] }, [], {
      webhook_id: this.deps.applicationId,
      application_id: this.deps.applicationId,
    });
  }
}

/** Builds interaction options, nesting them under a subcommand (and group) when given. */
function buildOptions(
  input: CommandInput,
  registered: APIApplicationCommandOption[] | undefined,
  focused: string | undefined,
): APIApplicationCommandInteractionDataOption[] {
  let defs = registered ?? [];
  if (input.subcommandGroup) defs = childOptions(defs, input.subcommandGroup);
  if (input.subcommand) defs = childOptions(defs, input.subcommand);

  let leaf: APIApplicationCommandInteractionDataOption[];
  if (Array.isArray(input.options)) {
    leaf = input.options;
  } else {
    leaf = Object.entries(input.options ?? {}).map(([name, value]) => {
      const declared = defs.find((d) => d.name === name)?.type;
      return {
        name,
        type: declared ?? inferType(value),
        value,
        ...(name === focused ? { focused: true } : {}),
      } as APIApplicationCommandInteractionDataOption;
    });
    if (focused !== undefined && !(focused in (input.options ?? {}))) {
      const declared = defs.find((d) => d.name === focused)?.type ?? 3;
      leaf.push({ name: focused, type: declared, value: '', focused: true } as APIApplicationCommandInteractionDataOption);
    }
  }

  if (input.subcommand) {
    const sub = { type: 1, name: input.subcommand, options: leaf } as APIApplicationCommandInteractionDataOption;
    if (input.subcommandGroup) {
      return [{ type: 2, name: input.subcommandGroup, options: [sub] } as APIApplicationCommandInteractionDataOption];
    }
    return [sub];
  }
  return leaf;
}

function childOptions(defs: APIApplicationCommandOption[], name: string): APIApplicationCommandOption[] {
  const parent = defs.find((d) => d.name === name) as { options?: APIApplicationCommandOption[] } | undefined;
  return parent?.options ?? [];
}

function inferType(value: OptionValue): number {
  if (typeof value === 'boolean') return 5;
  if (typeof value === 'number') return Number.isInteger(value) ? 4 : 10;
  return 3;
}
