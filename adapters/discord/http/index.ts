import type { ServerResponse } from 'node:http';
import { type Client, Events, type Interaction, Options, Routes } from 'discord.js';
import type { Registry } from 'prom-client';
import type { Core } from '../../../commands/core/index.js';
import type { HttpRoute } from '../../../src/http/routes.js';
import type { Logger } from '../../../src/log.js';
import { DiscordAdapter } from '../client.js';
import { describeError } from '../errors.js';
import { deliveryMethods, registerForMentions, type DiscordHandle } from '../index.js';
import type { DiscordSettings } from '../register.js';
import { restOptions } from '../rest.js';
import { INTERACTION, interactionsRoute, type RawInteraction } from './endpoint.js';
import { InitialResponses } from './responses.js';

export interface DiscordHttpOptions {
  core: Core;
  discord: DiscordSettings & { publicKey: string };
  log: Logger;
  /** The registry behind `/metrics`, where refused requests are counted. */
  metrics?: { registry: Registry };
  /**
   * How long an answer may take to go out whole as the HTTP response; a slower one is deferred and
   * edited in. Discord's 3 s include the trip both ways, so this stays well below.
   */
  quickAnswerMs?: number;
  /** If nothing has answered an interaction by then, a short apology does, rather than Discord's "This interaction failed". */
  deadlineMs?: number;
  now?: () => number;
}

export interface DiscordHttp {
  /** `POST /discord/interactions`, served from the first request on (Discord's check of the URL included). */
  readonly route: HttpRoute;
  /** Checks the token and learns the bot's own user (`GET /users/@me`), registers the commands. */
  start(): Promise<DiscordHandle>;
  /** Turns new interactions away and lets those under way finish (bounded). */
  stop(): Promise<void>;
}

const APOLOGY = {
  type: 4,
  data: { content: '⚠️ Something went wrong answering that. Please try again.', flags: 64, allowed_mentions: { parse: [] } },
};
const NO_CHOICES = { type: 8, data: { choices: [] } };
const DRAIN_MS = 5_000;

/**
 * Discord over its HTTP interactions endpoint, with no gateway connection. The gateway adapter
 * answers each interaction exactly as it does there: the discord.js interaction objects are built
 * from the request's payload by discord.js itself, on a client that never logs in, and only where
 * the first answer goes differs (see InitialResponses). Digests and alerts post with the bot token
 * over REST, as under the gateway.
 */
export function discordOverHttp(options: DiscordHttpOptions): DiscordHttp {
  const { core, discord, log } = options;
  const responses = new InitialResponses(restOptions(discord).makeRequest!);
  const adapter = new DiscordAdapter({
    core,
    discord,
    log,
    transport: 'http',
    quickAnswerMs: options.quickAnswerMs ?? 1_000,
    clientOptions: {
      rest: { ...restOptions(discord), makeRequest: responses.makeRequest },
      // With no gateway, nothing ever removes a user from the cache; everyone who clicks is added.
      makeCache: Options.cacheWithLimits({ ...Options.DefaultMakeCacheSettings, MessageManager: 0, UserManager: 1_000 }),
    },
  });
  const { client } = adapter;
  client.rest.setToken(discord.token);
  const deadlineMs = options.deadlineMs ?? 2_500;
  const inFlight = new Set<Promise<void>>();
  let stopping = false;
  let me: string | undefined;

  const answer = async (raw: RawInteraction, res: ServerResponse): Promise<void> => {
    responses.hold(raw.id, raw.token, res);
    const fallback = raw.type === INTERACTION.autocomplete ? NO_CHOICES : APOLOGY;
    const late = setTimeout(() => {
      void responses
        .answerIfOpen(raw.id, fallback)
        .then((did) => did && log.warn({ type: raw.type, ms: deadlineMs }, 'discord interaction not answered in time; apologised'));
    }, deadlineMs);
    const work = (async () => {
      const interaction = build(client, raw, log);
      if (interaction) await adapter.onInteraction(interaction);
    })();
    inFlight.add(work);
    try {
      await work;
    } finally {
      inFlight.delete(work);
      clearTimeout(late);
    }
    // Nothing answered (an interaction this adapter has no use for): Discord still needs a response.
    if (await responses.answerIfOpen(raw.id, fallback)) log.info({ type: raw.type }, 'discord interaction had no answer; apologised');
  };

  const route = interactionsRoute({
    publicKey: discord.publicKey,
    applicationId: discord.applicationId,
    log,
    ...(options.metrics ? { registry: options.metrics.registry } : {}),
    ...(options.now ? { now: options.now } : {}),
    answer,
    stopping: () => stopping,
  });

  let stopped: Promise<void> | null = null;
  const stop = () => {
    stopping = true;
    stopped ??= (async () => {
      await Promise.race([Promise.allSettled([...inFlight]), new Promise((r) => setTimeout(r, DRAIN_MS).unref())]);
      await client.destroy();
      log.info('discord adapter stopped');
    })();
    return stopped;
  };

  const start = async (): Promise<DiscordHandle> => {
    try {
      me = ((await client.rest.get(Routes.user('@me'))) as { id: string }).id;
    } catch (err) {
      const info = describeError(err);
      log.error({ error: info }, 'discord start-up failed');
      throw new Error(`Discord: the bot token check (GET /users/@me) failed: ${info.message}`);
    }
    await registerForMentions(adapter, discord, log);
    adapter.warmLists();
    log.info({ transport: 'http', user: me }, 'discord adapter ready');
    return {
      ...deliveryMethods(adapter, () => me),
      // No gateway, no shards: this process is the only one scheduling.
      shards: { ids: [], count: 0 },
      primary: true,
      adapter,
      status: () => ({ ok: !stopping, detail: 'http interactions' }),
      stop,
    };
  };

  return { route, start, stop };
}

/**
 * The discord.js interaction for a payload, made by discord.js's own INTERACTION_CREATE handling
 * (it picks the class for each kind of interaction and component). Its event is emitted
 * synchronously, so the listener sees exactly this payload's interaction.
 */
function build(client: Client, raw: RawInteraction, log: Logger): Interaction | undefined {
  let made: Interaction | undefined;
  const take = (i: Interaction) => {
    made = i;
  };
  client.on(Events.InteractionCreate, take);
  try {
    (client as unknown as { actions: { InteractionCreate: { handle(data: unknown): void } } }).actions.InteractionCreate.handle(raw);
  } catch (err) {
    log.warn({ error: describeError(err), type: raw.type }, 'discord interaction could not be read');
  } finally {
    client.off(Events.InteractionCreate, take);
  }
  return made;
}
