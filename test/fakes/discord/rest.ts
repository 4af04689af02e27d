import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIMessage, APIUser } from 'discord.js';
import { requestHead, secretWatch } from '../../helpers/secret-watch.js';
import type { CommandScope, CommandStore } from './commands.js';
import {
  fieldError,
  invalidForm,
  invalidJson,
  missingAccess,
  notFound,
  unauthorized,
  unknownChannel,
  unknownCommand,
  threadExists,
  unknownMessage,
} from './errors.js';
import { type Ctx, type Handler, type Reply, decodeSegments, error, flattenHeaders, json, noContent, readBody, send } from './http.js';
import type { Interactions } from './interactions.js';
import { BodyParseError, parseBody } from './multipart.js';
import type { RecordedCall, RecordedFile, Recorder } from './recorder.js';
import { Router } from './router.js';
import { validateCommand, validateMessage } from './validate.js';
import { InteractionEndpoints } from './webhooks.js';
import { type MessageBody, type World, userPayload } from './world.js';

export const API_PREFIX = '/api/v10';

export interface RestDeps {
  token: string;
  applicationId: string;
  botUser: APIUser;
  world: World;
  commands: CommandStore;
  interactions: Interactions;
  recorder: Recorder;
  /** Discord drops interactions not answered within 3 s; tests may shorten or lengthen it. */
  callbackDeadlineMs: number;
  gatewayUrl: () => string;
  now: () => number;
}

export interface FailureSpec {
  status: number;
  code?: number;
  message?: string;
}

export interface RateLimitSpec {
  retryAfterSec: number;
  /** Mark the limit as global (`X-RateLimit-Global`), which pauses every route in the client. */
  global?: boolean;
  /** How many consecutive matching requests get the 429; default 1. */
  times?: number;
}

interface Injected {
  matches: (method: string, template: string | null, path: string) => boolean;
  remaining: number;
  reply: () => Reply;
}

export class RestApi {
  readonly #router = new Router<Handler>();
  readonly #channelFailures = new Map<string, FailureSpec>();
  readonly #injected: Injected[] = [];
  /** The interaction callback and webhook routes (their rules also judge responses given over HTTP). */
  readonly endpoints: InteractionEndpoints;

  constructor(private readonly deps: RestDeps) {
    this.endpoints = new InteractionEndpoints(deps);
    this.#routes();
  }

  /** Every request touching this channel fails with `failure` until `restoreChannel`. */
  failChannel(channelId: string, failure: FailureSpec): void {
    this.#channelFailures.set(channelId, failure);
  }

  restoreChannel(channelId: string): void {
    this.#channelFailures.delete(channelId);
  }

  /**
   * Answers the next matching request(s) with 429. `route` is a template
   * (`/channels/:channelId/messages`) or a concrete path, optionally prefixed by a
   * method (`POST /channels/:channelId/messages`).
   */
  rateLimitNext(route: string, spec: RateLimitSpec): void {
    const bucket = `fake-${route.replace(/\W+/g, '-')}`;
    this.#inject(route, spec.times ?? 1, () => {
      const after = String(spec.retryAfterSec);
      const headers: Record<string, string> = {
        'retry-after': after,
        'x-ratelimit-scope': spec.global ? 'global' : 'user',
      };
      if (spec.global) headers['x-ratelimit-global'] = 'true';
      else
        Object.assign(headers, {
          'x-ratelimit-limit': '5',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': ((Date.now() + spec.retryAfterSec * 1000) / 1000).toFixed(3),
          'x-ratelimit-reset-after': after,
          'x-ratelimit-bucket': bucket,
        });
      return {
        status: 429,
        headers,
        json: { message: 'You are being rate limited.', retry_after: spec.retryAfterSec, global: spec.global === true },
      };
    });
  }

  /** Answers the next matching request(s) with an arbitrary error (e.g. a 500 to exercise retries). */
  failNext(route: string, failure: FailureSpec & { times?: number }): void {
    this.#inject(route, failure.times ?? 1, () =>
      error({ status: failure.status, code: failure.code ?? 0, message: failure.message ?? `${failure.status}: fake failure` }),
    );
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    // Whatever token a client presents is one of its secrets, right or wrong.
    secretWatch.secret(/^Bot\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1], 'Discord token sent to the fake');
    const head = requestHead(req);
    secretWatch.payload(`fake Discord ${head.line}`, `${head.headers}\n\n${raw.toString('utf8')}`);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = (req.method ?? 'GET').toUpperCase();

    if (method === 'GET' && url.pathname.startsWith('/attachments/')) return this.#serveAttachment(url.pathname, res);

    const headers = flattenHeaders(req);
    const versioned = url.pathname.startsWith(`${API_PREFIX}/`);
    // Recorded and routed decoded, so `@original` matches whether or not the client escaped it.
    const path = decodeSegments(versioned ? url.pathname.slice(API_PREFIX.length) : url.pathname);
    const { found } = versioned ? this.#router.match(method, path) : { found: null };

    // An interaction answered over HTTP has its webhook once Discord has read that response.
    const token = /^\/(?:webhooks\/\d+|interactions\/\d+)\/([^/]+)/.exec(path)?.[1];
    const answering = token ? this.deps.interactions.byToken.get(token)?.http : undefined;
    if (answering) await answering;

    let body: unknown;
    let files: RecordedFile[] = [];
    let reply: Reply;
    try {
      ({ body, files } = await parseBody(req.headers['content-type'], raw));
      reply = this.#dispatch(method, path, found, { query: url.searchParams, body, files }, headers);
    } catch (e) {
      if (!(e instanceof BodyParseError)) throw e;
      reply = error(invalidJson(e.message));
    }

    const call: RecordedCall = {
      method,
      path,
      route: found?.template ?? null,
      query: Object.fromEntries(url.searchParams),
      body,
      files,
      headers,
      status: reply.status,
      at: Date.now(),
    };
    const rawText = `${method} ${req.url}\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n')}\n\n${raw.toString('utf8')}`;
    // Recorded before answering so a test that awaits the client call always sees it.
    this.deps.recorder.record(call, rawText);
    send(res, reply);
  }

  #dispatch(
    method: string,
    path: string,
    found: ReturnType<Router<Handler>['match']>['found'],
    ctx: Omit<Ctx, 'params'>,
    headers: Record<string, string>,
  ): Reply {
    if (!found) return error(notFound());
    if (found.auth && headers.authorization !== `Bot ${this.deps.token}`) return error(unauthorized());

    const injected = this.#injected.find((i) => i.remaining > 0 && i.matches(method, found.template, path));
    if (injected) {
      injected.remaining -= 1;
      return injected.reply();
    }
    const failure = found.params.channelId ? this.#channelFailures.get(found.params.channelId) : undefined;
    if (failure) {
      return error({ status: failure.status, code: failure.code ?? 0, message: failure.message ?? `${failure.status}: fake failure` });
    }
    return found.handler({ ...ctx, params: found.params });
  }

  #inject(route: string, times: number, reply: () => Reply): void {
    const m = /^(GET|POST|PUT|PATCH|DELETE)\s+(.+)$/i.exec(route.trim());
    const wantMethod = m?.[1]?.toUpperCase();
    const target = (m?.[2] ?? route).trim();
    // A misspelt template would otherwise never match and the test would pass for the wrong reason.
    if (!target.startsWith('/') || (target.includes('/:') && !this.#router.hasTemplate(target))) {
      throw new Error(`fake Discord: unknown route ${JSON.stringify(route)}`);
    }
    this.#injected.push({
      remaining: times,
      reply,
      matches: (method, template, path) => (!wantMethod || wantMethod === method) && (target === template || target === path),
    });
  }

  #serveAttachment(pathname: string, res: ServerResponse): void {
    const [, , channelId = '', attachmentId = ''] = pathname.split('/');
    const file = this.deps.world.attachmentBytes(channelId, attachmentId);
    if (!file) return send(res, error(notFound()));
    res.writeHead(200, { 'content-type': file.contentType, 'content-length': file.bytes.length });
    res.end(file.bytes);
  }

  #routes(): void {
    const { deps } = this;
    const r = this.#router;

    r.add('GET', '/gateway', () => json(200, { url: deps.gatewayUrl() }), { auth: false });
    r.add('GET', '/gateway/bot', () =>
      json(200, {
        url: deps.gatewayUrl(),
        shards: 1,
        session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 },
      }),
    );
    r.add('GET', '/users/@me', () => json(200, deps.botUser));
    r.add('GET', '/applications/@me', () => json(200, this.#application()));

    for (const base of ['/applications/:applicationId/commands', '/applications/:applicationId/guilds/:guildId/commands']) {
      r.add('GET', base, (c) => this.#withScope(c, (scope) => json(200, deps.commands.list(scope))));
      r.add('PUT', base, (c) => this.#withScope(c, (scope) => this.#bulkOverwrite(scope, c.body)));
      r.add('POST', base, (c) =>
        this.#withScope(c, (scope) => {
          const invalid = validateCommand((c.body ?? {}) as Record<string, unknown>, 'body');
          if (invalid) return error(invalid);
          const { command, created } = deps.commands.upsert(scope, c.body as Record<string, unknown>);
          return json(created ? 201 : 200, command);
        }),
      );
      r.add('GET', `${base}/:commandId`, (c) =>
        this.#withScope(c, (scope) => {
          const command = deps.commands.get(scope, c.params.commandId ?? '');
          return command ? json(200, command) : error(unknownCommand());
        }),
      );
      r.add('PATCH', `${base}/:commandId`, (c) =>
        this.#withScope(c, (scope) => {
          const command = deps.commands.patch(scope, c.params.commandId ?? '', (c.body ?? {}) as Record<string, unknown>);
          return command ? json(200, command) : error(unknownCommand());
        }),
      );
      r.add('DELETE', `${base}/:commandId`, (c) =>
        this.#withScope(c, (scope) => (deps.commands.delete(scope, c.params.commandId ?? '') ? noContent() : error(unknownCommand()))),
      );
    }

    this.endpoints.register(r);

    // The roles of a server the bot is in (@everyone first); another server's are out of its reach.
    r.add('GET', '/guilds/:guildId/roles', (c) => {
      const guild = deps.world.guilds.get(c.params.guildId ?? '');
      return guild ? json(200, deps.world.rolesPayload(guild)) : error(missingAccess());
    });
    r.add('GET', '/channels/:channelId', (c) => {
      const channel = deps.world.channels.get(c.params.channelId ?? '');
      return channel ? json(200, deps.world.channelPayload(channel)) : error(unknownChannel());
    });
    r.add('POST', '/channels/:channelId/messages', (c) => {
      const channelId = c.params.channelId ?? '';
      if (!deps.world.channels.has(channelId)) return error(unknownChannel());
      const channel = deps.world.channels.get(channelId)!;
      // A channel of a server the bot is not in (a person's own install reached it) is out of its reach; its own DMs are not.
      if (!channel.recipient && !deps.world.guilds.has(channel.guildId)) return error(missingAccess());
      const invalid = validateMessage(c.body as MessageBody, c.files, false);
      if (invalid) return error(invalid);
      // A reply names the message it answers, which must be in that channel, unless the sender said
      // a missing one does not matter (`fail_if_not_exists: false`).
      const reference = (c.body as { message_reference?: { message_id?: string; channel_id?: string; fail_if_not_exists?: boolean } })
        ?.message_reference;
      let referenced: APIMessage | undefined;
      if (reference) {
        const inChannel = reference.channel_id ?? channelId;
        referenced = reference.message_id ? deps.world.messages.get(reference.message_id) : undefined;
        if (!referenced || referenced.channel_id !== inChannel || inChannel !== channelId) {
          referenced = undefined;
          if (reference.fail_if_not_exists !== false)
            return error(invalidForm(fieldError('message_reference', 'MESSAGE_REFERENCE_UNKNOWN_MESSAGE', 'Unknown message')));
        }
      }
      return json(
        200,
        deps.world.createMessage(
          channelId,
          (c.body ?? {}) as MessageBody,
          c.files,
          referenced
            ? { message_reference: { message_id: referenced.id, channel_id: channelId }, referenced_message: referenced, type: 19 }
            : {},
        ),
      );
    });
    // "polbot is typing…": shown for a few seconds in a channel the bot can reach.
    r.add('POST', '/channels/:channelId/typing', (c) =>
      deps.world.channels.has(c.params.channelId ?? '') ? noContent() : error(unknownChannel()),
    );
    r.add('GET', '/channels/:channelId/messages', (c) => {
      const channelId = c.params.channelId ?? '';
      if (!deps.world.channels.has(channelId)) return error(unknownChannel());
      // Discord's limit: 50 unless asked, 1 to 100 a page; anything else is an invalid form.
      const asked = c.query.get('limit');
      const limit = asked === null ? 50 : Number(asked);
      if (!Number.isInteger(limit)) return error(invalidForm(fieldError('limit', 'NUMBER_TYPE_COERCE', `Value "${asked}" is not int.`)));
      if (limit > 100) return error(invalidForm(fieldError('limit', 'NUMBER_TYPE_MAX', 'int value should be less than or equal to 100.')));
      if (limit < 1) return error(invalidForm(fieldError('limit', 'NUMBER_TYPE_MIN', 'int value should be greater than or equal to 1.')));
      return json(200, [...deps.world.channelMessages(channelId)].reverse().slice(0, limit));
    });
    r.add('GET', '/channels/:channelId/messages/:messageId', (c) => {
      const message = this.#channelMessage(c);
      return message ? json(200, message) : error(unknownMessage());
    });
    r.add('PATCH', '/channels/:channelId/messages/:messageId', (c) => {
      const message = this.#channelMessage(c);
      if (!message) return error(unknownMessage());
      const invalid = validateMessage(c.body as MessageBody, c.files, true);
      return invalid ? error(invalid) : json(200, deps.world.editMessage(message, (c.body ?? {}) as MessageBody, c.files));
    });
    // Start Thread from Message: a name of 1 to 100 characters, one thread per message.
    r.add('POST', '/channels/:channelId/messages/:messageId/threads', (c) => {
      const message = this.#channelMessage(c);
      if (!message) return error(unknownMessage());
      const name = (c.body as { name?: unknown } | undefined)?.name;
      if (typeof name !== 'string' || name.length < 1 || name.length > 100)
        return error(invalidForm(fieldError('name', 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.')));
      if (deps.world.channels.has(message.id)) return error(threadExists());
      return json(201, deps.world.channelPayload(deps.world.startThread(message, name)));
    });
    r.add('DELETE', '/channels/:channelId/messages/:messageId', (c) => {
      const message = this.#channelMessage(c);
      if (!message) return error(unknownMessage());
      deps.world.messages.delete(message.id);
      return noContent();
    });
  }

  #application() {
    const { applicationId, botUser } = this.deps;
    return {
      id: applicationId,
      name: botUser.username,
      icon: null,
      description: '',
      summary: '',
      type: null,
      bot_public: false,
      bot_require_code_grant: false,
      verify_key: '0'.repeat(64),
      flags: 0,
      team: null,
      owner: userPayload({ id: '100000000000000001', username: 'owner' }),
      bot: botUser,
      install_params: { scopes: ['bot', 'applications.commands'], permissions: '0' },
      approximate_guild_count: this.deps.world.guilds.size,
    };
  }

  #withScope(c: Ctx, fn: (scope: CommandScope) => Reply): Reply {
    if (c.params.applicationId !== this.deps.applicationId) return error(missingAccess());
    const guildId = c.params.guildId;
    if (guildId !== undefined && !this.deps.world.guilds.has(guildId)) return error(missingAccess());
    return fn(guildId ?? 'global');
  }

  #bulkOverwrite(scope: CommandScope, body: unknown): Reply {
    if (!Array.isArray(body)) return error(invalidForm(fieldError('body', 'BASE_TYPE_ARRAY', 'Must be an array')));
    const seen = new Set<string>();
    for (const [i, cmd] of body.entries()) {
      const invalid = validateCommand(cmd as Record<string, unknown>, String(i));
      if (invalid) return error(invalid);
      const key = `${(cmd as { type?: number }).type ?? 1}:${(cmd as { name: string }).name}`;
      if (seen.has(key)) {
        return error(
          invalidForm(fieldError(`${i}.name`, 'APPLICATION_COMMANDS_DUPLICATE_NAME', 'Application command names must be unique')),
        );
      }
      seen.add(key);
    }
    return json(200, this.deps.commands.bulkOverwrite(scope, body as Record<string, unknown>[]));
  }

  #channelMessage(c: Ctx): APIMessage | undefined {
    const message = this.deps.world.messages.get(c.params.messageId ?? '');
    return message && message.channel_id === c.params.channelId ? message : undefined;
  }
}
