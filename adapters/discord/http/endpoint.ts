import type { IncomingMessage, ServerResponse } from 'node:http';
import { LRUCache } from 'lru-cache';
import { Counter, type Registry } from 'prom-client';
import { z } from 'zod';
import type { HttpRoute } from '../../../src/http/routes.js';
import type { Logger } from '../../../src/log.js';
import { publicKeyFromHex, signedByDiscord } from './verify.js';

export const INTERACTIONS_PATH = '/discord/interactions';

/** How far a request's timestamp may be from our clock, either way: Discord's and Slack's five minutes. */
const MAX_SKEW_S = 5 * 60;
/** Interaction payloads carry at most a message with its embeds (the context menu): far below this. */
const DEFAULT_MAX_BODY = 1024 * 1024;
const REFUSALS = ['missing_signature', 'bad_signature', 'stale', 'replayed', 'malformed', 'unknown_type', 'too_large'] as const;
type Refusal = (typeof REFUSALS)[number];

export const INTERACTION = { ping: 1, command: 2, component: 3, autocomplete: 4 } as const;

const user = z.object({ id: z.string() }).passthrough();
const interaction = z
  .object({
    id: z.string().regex(/^\d{5,25}$/),
    application_id: z.string(),
    type: z.number().int(),
    token: z.string().min(1).optional(),
    data: z.record(z.string(), z.unknown()).optional(),
    user: user.optional(),
    member: z.object({ user }).passthrough().optional(),
  })
  .passthrough();

/** A verified interaction as Discord sent it (a command, a component or autocomplete). */
export type RawInteraction = z.infer<typeof interaction> & { token: string; data: Record<string, unknown> };

export interface InteractionEndpointOptions {
  publicKey: string;
  applicationId: string;
  log: Logger;
  /** Where refusals are counted (`polbot_discord_interactions_refused_total`). */
  registry?: Registry;
  /** Answers one verified interaction; its initial response goes to `res`. Never rejects. */
  answer(raw: RawInteraction, res: ServerResponse): Promise<void>;
  /** While true, interactions are turned away with a 503 (shutting down). */
  stopping(): boolean;
  maxBodyBytes?: number;
  now?: () => number;
}

/**
 * `POST /discord/interactions`: every request is checked against the application's public key
 * before anything in it is read. Discord sends requests with bad signatures on purpose to check
 * that they are refused; a request passing the check but older than five minutes, or one already
 * seen, is a replay and refused the same way.
 */
export function interactionsRoute(opts: InteractionEndpointOptions): HttpRoute {
  const key = publicKeyFromHex(opts.publicKey);
  const now = opts.now ?? Date.now;
  const limit = opts.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const refused = opts.registry ? refusalCounter(opts.registry) : undefined;
  // Twice the timestamp window: a replay arriving any time its timestamp is still accepted is caught.
  const seen = new LRUCache<string, true>({ max: 100_000, ttl: 2 * MAX_SKEW_S * 1000 });

  const refuse = (res: ServerResponse, reason: Refusal, status: number, message: string) => {
    refused?.inc({ reason });
    opts.log.debug({ reason, status }, 'discord interaction refused');
    json(res, status, { error: message });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readBody(req, limit);
    if (body === 'too_large') return refuse(res, 'too_large', 413, 'body too large');
    const signature = header(req, 'x-signature-ed25519');
    const timestamp = header(req, 'x-signature-timestamp');
    if (!signature || !timestamp) return refuse(res, 'missing_signature', 401, 'missing signature');
    if (!signedByDiscord(key, signature, timestamp, body)) return refuse(res, 'bad_signature', 401, 'invalid request signature');
    const at = Number(timestamp);
    if (!/^\d{1,12}$/.test(timestamp) || Math.abs(now() / 1000 - at) > MAX_SKEW_S) return refuse(res, 'stale', 401, 'stale request');

    let parsed: z.infer<typeof interaction>;
    try {
      const result = interaction.safeParse(JSON.parse(body.toString('utf8')));
      if (!result.success) return refuse(res, 'malformed', 400, 'not an interaction');
      parsed = result.data;
    } catch {
      return refuse(res, 'malformed', 400, 'body is not JSON');
    }
    if (parsed.application_id !== opts.applicationId) return refuse(res, 'malformed', 400, 'interaction for another application');
    if (seen.has(parsed.id)) return refuse(res, 'replayed', 401, 'interaction already received');
    seen.set(parsed.id, true);

    if (parsed.type === INTERACTION.ping) return json(res, 200, { type: 1 });
    const answerable =
      parsed.type === INTERACTION.command || parsed.type === INTERACTION.component || parsed.type === INTERACTION.autocomplete;
    if (!answerable) return refuse(res, 'unknown_type', 400, 'unsupported interaction type');
    if (!parsed.token || !parsed.data || !(parsed.user ?? parsed.member?.user))
      return refuse(res, 'malformed', 400, 'incomplete interaction');
    if (opts.stopping()) return json(res, 503, { error: 'shutting down' });
    await opts.answer(parsed as RawInteraction, res);
  };

  return { path: INTERACTIONS_PATH, method: 'POST', handle };
}

function refusalCounter(registry: Registry): Counter<'reason'> {
  const name = 'polbot_discord_interactions_refused_total';
  // One counter per registry, however many endpoints a process (or a test) makes on it.
  const existing = registry.getSingleMetric(name) as Counter<'reason'> | undefined;
  if (existing) return existing;
  const counter = new Counter({
    name,
    help: 'Requests to the Discord interactions endpoint turned away, by reason (bad or missing signature, stale, replayed, malformed, unknown type, too large)',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  for (const reason of REFUSALS) counter.inc({ reason }, 0);
  return counter;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The raw body, as the signature covers it byte for byte; 'too_large' past `limit` (the rest is drained unread). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too_large'> {
  if (Number(req.headers['content-length'] ?? 0) > limit) {
    req.resume();
    return Promise.resolve('too_large');
  }
  // Events rather than for-await: leaving a for-await early destroys the request, and the 413 with it.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.off('data', onData);
      req.resume();
      resolve('too_large');
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return void res.end();
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
