/**
 * An in-process stand-in for Discord's REST API and gateway, for driving the real
 * discord.js client in tests:
 *
 *   const fake = await startFakeDiscord({ guildIds: ['1100000000000000001'], heartbeatIntervalMs: 300 });
 *   const client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: fake.apiUrl } });
 *   await client.login(fake.token);
 *
 * Only the REST base needs overriding: the client learns the gateway URL from
 * `GET /gateway/bot`, and the resume URL from READY.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIApplicationCommand, APIMessage, APIUser } from 'discord.js';
import { requestHead, secretWatch } from '../../helpers/secret-watch.js';
import { CommandStore } from './commands.js';
import { type ConnectionRecord, Gateway, type GatewayEventKind, type IdentifyRecord } from './gateway.js';
import { botToken, snowflake } from './ids.js';
import {
  type AutocompleteInput,
  type CommandInput,
  type MessageCommandInput,
  type ComponentInput,
  type InteractionHandle,
  Interactions,
} from './interactions.js';
import { OutgoingInteractions, type RawPost, type RawResponse } from './outgoing.js';
import { type CallFilter, type RecordedCall, Recorder } from './recorder.js';
import { type FailureSpec, type RateLimitSpec, RestApi } from './rest.js';
import { World, userPayload } from './world.js';

export type {
  AutocompleteInput,
  CommandInput,
  ComponentInput,
  HttpExchange,
  InteractionHandle,
  MessageCommandInput,
  RecordedCallback,
} from './interactions.js';
export type { RawPost, RawResponse, SignatureMode } from './outgoing.js';
export type { CallFilter, RecordedCall, RecordedFile } from './recorder.js';
export type { ConnectionRecord, GatewayEventKind, IdentifyRecord } from './gateway.js';
export type { FailureSpec, RateLimitSpec } from './rest.js';

export interface FakeDiscordOptions {
  /** Bot token the fake accepts; a realistic random one by default. */
  token?: string;
  applicationId?: string;
  /** Guilds the bot is in; each gets one text channel. Default: one guild. */
  guildIds?: string[];
  /** Extra text channels, each in a listed guild. */
  channels?: { id: string; guildId: string; name?: string }[];
  botUsername?: string;
  /** HELLO heartbeat interval; Discord uses 41250 ms, tests usually want far less. */
  heartbeatIntervalMs?: number;
  /** Privileged intents switched on for the application (bitfield); default none. */
  privilegedIntents?: number;
  /** How long an interaction accepts its initial response; Discord allows 3000 ms. */
  callbackDeadlineMs?: number;
}

export interface FakeDiscord {
  /** REST base for discord.js (`rest: { api }`) and `DISCORD_API_URL`, e.g. `http://127.0.0.1:PORT/api`. */
  readonly apiUrl: string;
  readonly gatewayUrl: string;
  readonly token: string;
  readonly applicationId: string;
  readonly botUser: APIUser;
  readonly guildIds: string[];
  /** The text channel created for each guild, keyed by guild id. */
  readonly channelIds: Record<string, string>;
  /** A member used for interactions that do not name one. */
  readonly defaultUser: APIUser;

  // Recorder
  calls(filter?: CallFilter): RecordedCall[];
  waitFor(filter: CallFilter, timeoutMs?: number): Promise<RecordedCall>;
  clear(): void;
  rawPayloads(): string[];

  // Platform state
  commands(guildId?: string): APIApplicationCommand[];
  messages(channelId: string): APIMessage[];
  addChannel(id: string, guildId: string, name?: string): void;
  /** Adds a role to a guild (mentionable by anyone unless said otherwise); returns its id. */
  addRole(guildId: string, name: string, opts?: { mentionable?: boolean }): string;
  /** Opens the DM channel between the bot and a person (the default user unless said); returns its id. */
  addDmChannel(person?: APIUser): string;
  /**
   * A person writes a message: stored in the channel and sent over the gateway as MESSAGE_CREATE,
   * as Discord sends it to a bot with the guild and direct message intents (in a guild, with the
   * author's member). Its `<@id>` mentions of the bot are parsed into `mentions`. Returns it.
   */
  say(input: { channelId: string; content: string; author?: APIUser }): APIMessage;

  // REST controls
  failChannel(channelId: string, failure: FailureSpec): void;
  restoreChannel(channelId: string): void;
  rateLimitNext(route: string, spec: RateLimitSpec): void;
  failNext(route: string, failure: FailureSpec & { times?: number }): void;

  // Gateway
  readonly connectionCount: number;
  readonly identifyCount: number;
  readonly resumeCount: number;
  readonly identifies: readonly IdentifyRecord[];
  readonly connections: readonly ConnectionRecord[];
  /** How often a gateway event happened (connect, identify, ready, resume, resumed, invalid-session, heartbeat, close). */
  gatewayCount(kind: GatewayEventKind): number;
  waitForReady(timeoutMs?: number): Promise<void>;
  /** Resolves once `kind` has happened at least `count` times since start. */
  waitForGateway(kind: GatewayEventKind, count?: number, timeoutMs?: number): Promise<void>;
  dropConnections(code?: number | 'abrupt'): void;
  requestReconnect(): void;
  invalidateSessions(): void;
  dispatch(event: string, data: unknown): void;

  // Interactions over HTTP
  /** The application's Ed25519 public key, 64 hex characters, as the Developer Portal shows it (`DISCORD_PUBLIC_KEY`). */
  readonly publicKey: string;
  /**
   * Sets the Interactions Endpoint URL as the Developer Portal does, after checking it (a signed
   * PING answered with PONG, a badly signed one with 401). From then on every interaction is
   * POSTed there, signed, and none goes over the gateway; `null` goes back to the gateway.
   */
  setInteractionsEndpoint(url: string | null): Promise<void>;
  /** A POST to the endpoint, signed or not as asked, for requests no interaction makes (PING, forgeries, replays). */
  postToEndpoint(req: RawPost): Promise<RawResponse>;

  // Interactions
  sendCommand(input: CommandInput): InteractionHandle;
  sendMessageCommand(input: MessageCommandInput): InteractionHandle;
  sendAutocomplete(input: AutocompleteInput): InteractionHandle;
  sendComponent(input: ComponentInput): InteractionHandle;

  /** Moves the fake's clock on, to reach Discord's time limits (a token's 15 minutes) without waiting. */
  advanceClock(ms: number): void;
  close(): Promise<void>;
}

export async function startFakeDiscord(opts: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const applicationId = opts.applicationId ?? snowflake();
  const token = opts.token ?? botToken(applicationId);
  secretWatch.secret(token, 'fake Discord bot token');
  const botUser = userPayload({ id: applicationId, username: opts.botUsername ?? 'polbot', globalName: null }, true);
  const defaultUser = userPayload({ username: 'tester' });

  const recorder = new Recorder();
  const world = new World(botUser);
  const channelIds: Record<string, string> = {};
  for (const guildId of opts.guildIds ?? [snowflake()]) {
    world.addGuild(guildId);
    channelIds[guildId] = world.addChannel(snowflake(), guildId, 'general').id;
  }
  for (const c of opts.channels ?? []) {
    if (!world.guilds.has(c.guildId)) throw new Error(`channel ${c.id}: unknown guild ${c.guildId}`);
    world.addChannel(c.id, c.guildId, c.name);
  }
  const commands = new CommandStore(applicationId);

  const gateway = new Gateway({
    token,
    applicationId,
    botUser,
    world,
    recorder,
    heartbeatIntervalMs: opts.heartbeatIntervalMs ?? 41_250,
    privilegedIntents: opts.privilegedIntents ?? 0,
  });
  let clockOffsetMs = 0;
  const now = () => Date.now() + clockOffsetMs;
  const callbackDeadlineMs = opts.callbackDeadlineMs ?? 3_000;
  const outgoing = new OutgoingInteractions({ applicationId, recorder, endpoints: () => rest.endpoints, callbackDeadlineMs, now });
  const interactions = new Interactions({
    now,
    applicationId,
    world,
    commands,
    recorder,
    defaultUser,
    // With an Interactions Endpoint URL, Discord sends interactions there and no longer over the gateway.
    dispatch: (payload, state) => (outgoing.endpoint ? outgoing.deliver(payload, state) : gateway.dispatch('INTERACTION_CREATE', payload)),
  });
  const rest = new RestApi({
    token,
    applicationId,
    botUser,
    world,
    commands,
    interactions,
    recorder,
    callbackDeadlineMs,
    gatewayUrl: () => gateway.url,
    now,
  });

  const server = createServer((req, res) => {
    rest.handle(req, res).catch((e: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: `fake Discord failure: ${(e as Error).message}`, code: 0 }));
    });
  });
  server.on('upgrade', (req, socket, head) => {
    const { line, headers } = requestHead(req);
    secretWatch.payload(`fake Discord gateway ${line}`, headers);
    gateway.handleUpgrade(req, socket, head);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  world.origin = origin;
  gateway.url = `ws://127.0.0.1:${port}`;

  let closed = false;
  return {
    apiUrl: `${origin}/api`,
    gatewayUrl: gateway.url,
    token,
    applicationId,
    botUser,
    guildIds: [...world.guilds.keys()],
    channelIds,
    defaultUser,

    calls: (filter) => recorder.calls(filter),
    waitFor: (filter, timeoutMs) => recorder.waitFor(filter, timeoutMs),
    clear: () => recorder.clear(),
    rawPayloads: () => recorder.rawPayloads(),

    commands: (guildId) => commands.list(guildId ?? 'global'),
    messages: (channelId) => [...world.messages.values()].filter((m) => m.channel_id === channelId),
    addChannel: (id, guildId, name) => void world.addChannel(id, guildId, name),
    addRole: (guildId, name, o) => world.addRole(guildId, name, o).id,
    addDmChannel: (person = defaultUser) => world.addDmChannel(snowflake(), person).id,
    say: ({ channelId, content, author = defaultUser }) => {
      const channel = world.channels.get(channelId);
      if (!channel) throw new Error(`fake Discord: unknown channel ${channelId}`);
      const message = world.personMessage(channelId, author, content, [botUser]);
      const inGuild = channel.recipient
        ? {}
        : { guild_id: channel.guildId, member: { roles: [], joined_at: message.timestamp, deaf: false, mute: false, flags: 0 } };
      // Discord's MESSAGE_CREATE says the channel's type: 1 a DM, 11 a thread, 0 a text channel.
      const channelType = channel.recipient ? 1 : channel.parentId ? 11 : 0;
      gateway.dispatch('MESSAGE_CREATE', { ...message, ...inGuild, channel_type: channelType });
      return message;
    },

    failChannel: (channelId, failure) => rest.failChannel(channelId, failure),
    restoreChannel: (channelId) => rest.restoreChannel(channelId),
    rateLimitNext: (route, spec) => rest.rateLimitNext(route, spec),
    failNext: (route, failure) => rest.failNext(route, failure),

    get connectionCount() {
      return gateway.connectionCount;
    },
    get identifyCount() {
      return gateway.identifyCount;
    },
    get resumeCount() {
      return gateway.resumeCount;
    },
    identifies: gateway.identifies,
    connections: gateway.connections,
    gatewayCount: (kind) => gateway.count(kind),
    waitForReady: (timeoutMs) => gateway.waitFor('ready', 1, timeoutMs),
    waitForGateway: (kind, count, timeoutMs) => gateway.waitFor(kind, count, timeoutMs),
    dropConnections: (code) => gateway.dropConnections(code),
    requestReconnect: () => gateway.requestReconnect(),
    invalidateSessions: () => gateway.invalidateSessions(),
    dispatch: (event, data) => gateway.dispatch(event, data),

    publicKey: outgoing.publicKey,
    setInteractionsEndpoint: (url) => outgoing.setEndpoint(url),
    postToEndpoint: (req) => outgoing.post(null, req),

    sendCommand: (input) => interactions.sendCommand(input),
    sendMessageCommand: (input) => interactions.sendMessageCommand(input),
    sendAutocomplete: (input) => interactions.sendAutocomplete(input),
    sendComponent: (input) => interactions.sendComponent(input),

    advanceClock: (ms) => {
      clockOffsetMs += ms;
    },
    close: async () => {
      if (closed) return;
      closed = true;
      recorder.dispose();
      await gateway.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
