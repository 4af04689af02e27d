import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { ResponseParameters } from 'grammy/types';
import { requestHead, secretWatch } from '../../helpers/secret-watch.js';
import type { CallLog } from '../http-receiver/recorder.js';
import { closeNow, listenOnLoopback } from '../http-receiver/server.js';
import { type Args, readArgs, type UploadedFile } from './args.js';
import { badRequest, malformedToken, notFound, TelegramError, unauthorized } from './errors.js';
import type { Limits } from './limits.js';

/**
 * The Bot API on the wire: `POST|GET /bot<token>/<method>` with parameters in the query string or
 * a JSON, urlencoded or multipart body, answered `{ ok: true, result }` or `{ ok: false,
 * error_code, description, parameters? }` with the HTTP status of the error (and Retry-After
 * beside a 429); files at `/file/bot<token>/<file_path>`. Method names are case-insensitive, as
 * on Telegram. Every call is recorded, and shown to the suite's secret check with the token in
 * the path and a webhook's secret_token masked, as the Authorization header is elsewhere: those
 * carry the secret to Telegram by design.
 */

export type Method = (args: Args, gone: AbortSignal) => unknown;

/** A result the server sends with a `description` beside it (setWebhook: "Webhook was set"). */
export class Described {
  constructor(
    readonly result: unknown,
    readonly description: string,
  ) {}
}

export interface TelegramCall {
  /** The method as the client spelt it, e.g. `sendMessage`. */
  method: string;
  /** The parameters, JSON-typed ones (reply_markup, entities, scope…) decoded. */
  args: Record<string, unknown>;
  files: UploadedFile[];
  status: number;
  ok: boolean;
  result?: unknown;
  description?: string;
  parameters?: ResponseParameters;
  /** `webhook reply`: a method the bot's webhook answered an update with. */
  via: 'http' | 'webhook reply';
  at: Date;
}

export interface WireDeps {
  token: string;
  methods: Map<string, Method>;
  limits: Limits;
  log: CallLog<TelegramCall>;
  fileAt: (path: string) => Buffer | undefined;
}

interface Reply {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

const JSON_FIELDS = [
  'reply_markup',
  'reply_parameters',
  'entities',
  'caption_entities',
  'scope',
  'commands',
  'allowed_updates',
  'results',
  'link_preview_options',
];

export async function startWire(deps: WireDeps): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    handle(deps, req, res).catch((error: unknown) => {
      const reply = failure(new TelegramError(500, `Internal Server Error: fake Telegram failed: ${(error as Error).message}`));
      if (!res.headersSent) send(res, reply);
      else res.destroy();
    });
  });
  return { origin: await listenOnLoopback(server), close: () => closeNow(server) };
}

/** Runs one method call, wherever it came from, and records it. */
export async function run(deps: WireDeps, method: string, args: Args, gone: AbortSignal, via: TelegramCall['via']): Promise<Reply> {
  const name = method.toLowerCase();
  const handler = deps.methods.get(name);
  let reply: Reply;
  try {
    if (!handler) throw notFound();
    const planned = deps.limits.take(name);
    if (planned) throw planned;
    const outcome = await handler(args, gone);
    reply =
      outcome instanceof Described
        ? { status: 200, body: { ok: true, result: outcome.result, description: outcome.description } }
        : { status: 200, body: { ok: true, result: outcome } };
  } catch (error) {
    if (!(error instanceof TelegramError)) throw error;
    reply = failure(error);
  }
  const call: TelegramCall = {
    method,
    args: decoded(args.values),
    files: args.files,
    status: reply.status,
    ok: reply.status === 200,
    via,
    at: new Date(),
  };
  if (reply.status === 200) call.result = reply.body.result;
  if (typeof reply.body.description === 'string') call.description = reply.body.description;
  if (reply.body.parameters) call.parameters = reply.body.parameters as ResponseParameters;
  deps.log.record(call);
  return reply;
}

async function handle(deps: WireDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const route = /^\/(file\/)?bot([^/]*)\/(.*)$/.exec(url.pathname);
  const token = route ? decodeURIComponent(route[2]!) : undefined;
  secretWatch.secret(token, 'Telegram bot token sent to the fake');
  const head = requestHead(req);
  const line = route?.[2] ? head.line.replace(route[2], '[token]') : head.line;

  if (!route || route[3] === '') return send(res, failure(notFound()));
  const tokenError = checkToken(deps.token, token!);
  if (tokenError) {
    secretWatch.payload(`fake Telegram ${line}`, head.headers);
    return send(res, failure(tokenError));
  }
  if (route[1]) {
    secretWatch.payload(`fake Telegram ${line}`, head.headers);
    const bytes = deps.fileAt(decodeURIComponent(route[3]!));
    if (!bytes) return send(res, failure(notFound()));
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes.length });
    res.end(bytes);
    return;
  }

  const method = decodeURIComponent(route[3]!);
  const args = await readArgs(req.headers['content-type'], raw, url.searchParams);
  let body = raw.toString('utf8');
  const secret = method.toLowerCase() === 'setwebhook' ? args?.string('secret_token') : undefined;
  if (secret) body = body.split(secret).join('[secret_token]');
  secretWatch.payload(`fake Telegram ${line}`, `${head.headers}\n\n${body}`);
  if (!args) return send(res, failure(badRequest("can't parse JSON object")));

  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  send(res, await run(deps, method, args, gone.signal, 'http'));
}

/** 401 for a token the fake does not hold: worded as the server words a malformed one and an unknown one. */
function checkToken(expected: string, presented: string): TelegramError | undefined {
  const id = presented.split(':')[0] ?? '';
  const malformed = !presented.includes(':') || presented.startsWith('0') || presented.length > 80 || !/^\d+$/.test(id);
  if (malformed) return malformedToken();
  return presented === expected ? undefined : unauthorized();
}

function failure(error: TelegramError): Reply {
  const body: Record<string, unknown> = { ok: false, error_code: error.code, description: error.description };
  if (error.parameters) body.parameters = error.parameters;
  const retryAfter = error.parameters?.retry_after;
  return { status: error.code, body, ...(retryAfter ? { headers: { 'retry-after': String(retryAfter) } } : {}) };
}

function decoded(values: Record<string, unknown>): Record<string, unknown> {
  const out = { ...values };
  for (const field of JSON_FIELDS) {
    if (typeof out[field] !== 'string') continue;
    try {
      out[field] = JSON.parse(out[field] as string);
    } catch {
      // Kept as sent; the method already refused it.
    }
  }
  return out;
}

function send(res: ServerResponse, reply: Reply): void {
  if (res.destroyed) return;
  const payload = JSON.stringify(reply.body);
  res.writeHead(reply.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...reply.headers });
  res.end(payload);
}
