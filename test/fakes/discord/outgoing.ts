import { generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto';
import { secretWatch } from '../../helpers/secret-watch.js';
import { snowflake } from './ids.js';
import type { HttpExchange, InteractionState } from './interactions.js';
import { BodyParseError, parseBody } from './multipart.js';
import type { RecordedCall, Recorder } from './recorder.js';
import type { InteractionEndpoints } from './webhooks.js';

/**
 * Discord's side of the HTTP interactions endpoint: it holds the application's Ed25519 key pair,
 * signs each interaction (`X-Signature-Ed25519` over timestamp + body, `X-Signature-Timestamp`),
 * POSTs it to the app's Interactions Endpoint URL and takes the HTTP response as the initial
 * response, with the rules Discord applies to it: within 3 s, valid, and only once.
 */

export type SignatureMode = 'valid' | 'invalid' | 'none';

export interface RawPost {
  /** The request body as sent (signed byte for byte); an object is sent as JSON. */
  body: string | Buffer | object;
  /** `valid` (the default): signed with the application's key; `invalid`: with another key; `none`: no signature headers. */
  signature?: SignatureMode;
  /** Unix seconds put in `X-Signature-Timestamp` (and signed); now by default. */
  timestamp?: number;
  contentType?: string;
  /** Signs these bytes instead of `body`: a body changed after it was signed. */
  signedBody?: string;
}

export interface RawResponse {
  status: number;
  contentType: string;
  bytes: Buffer;
  ms: number;
  /** True when the response did not arrive within the deadline and the request was abandoned. */
  timedOut: boolean;
}

interface Deps {
  applicationId: string;
  recorder: Recorder;
  endpoints: () => InteractionEndpoints;
  /** Discord waits 3 s for the initial response. */
  callbackDeadlineMs: number;
  now: () => number;
}

const FAILED = 'This interaction failed';

export class OutgoingInteractions {
  readonly #keys = generateKeyPairSync('ed25519');
  /** Some other key: what Discord's deliberate bad requests are signed with. */
  readonly #otherKey: KeyObject = generateKeyPairSync('ed25519').privateKey;
  /** The application's public key as the Developer Portal shows it (64 hex characters). */
  readonly publicKey: string = this.#keys.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('hex');
  endpoint: string | null = null;

  constructor(private readonly deps: Deps) {}

  /**
   * What the Developer Portal does when the Interactions Endpoint URL is saved: a signed PING must
   * get a PONG and a badly signed one a 401, or the URL is not accepted.
   */
  async setEndpoint(url: string | null): Promise<void> {
    if (url === null) {
      this.endpoint = null;
      return;
    }
    const ping = () => ({ id: snowflake(), application_id: this.deps.applicationId, type: 1, token: `ping-${randomUUID()}`, version: 1 });
    const good = await this.post(url, { body: ping() });
    const pong = good.status === 200 ? safeJson(good.bytes) : undefined;
    if ((pong as { type?: unknown } | undefined)?.type !== 1)
      throw new Error(`fake Discord: the interactions endpoint URL did not answer a PING with a PONG (HTTP ${good.status})`);
    const bad = await this.post(url, { body: ping(), signature: 'invalid' });
    if (bad.status !== 401)
      throw new Error(
        `fake Discord: the interactions endpoint URL accepted a request with a bad signature (HTTP ${bad.status}); it must answer 401`,
      );
    this.endpoint = url;
  }

  /** One signed (or deliberately mis-signed) POST to the endpoint, as raw as the test wants it. */
  async post(url: string | null, req: RawPost): Promise<RawResponse> {
    const target = url ?? this.endpoint;
    if (!target) throw new Error('fake Discord: no interactions endpoint URL is set');
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.from(typeof req.body === 'string' ? req.body : JSON.stringify(req.body));
    const timestamp = String(req.timestamp ?? Math.floor(this.deps.now() / 1000));
    const headers: Record<string, string> = {
      'content-type': req.contentType ?? 'application/json',
      'user-agent': 'Discord-Interactions/1.0 (+https://discord.com)',
    };
    const mode = req.signature ?? 'valid';
    if (mode !== 'none') {
      const key = mode === 'valid' ? this.#keys.privateKey : this.#otherKey;
      const signed = req.signedBody === undefined ? body : Buffer.from(req.signedBody);
      headers['x-signature-ed25519'] = sign(null, Buffer.concat([Buffer.from(timestamp), signed]), key).toString('hex');
      headers['x-signature-timestamp'] = timestamp;
    }
    const started = performance.now();
    const signal = AbortSignal.timeout(this.deps.callbackDeadlineMs);
    try {
      const res = await fetch(target, { method: 'POST', headers, body, signal });
      const bytes = Buffer.from(await res.arrayBuffer());
      return {
        status: res.status,
        contentType: res.headers.get('content-type') ?? '',
        bytes,
        ms: performance.now() - started,
        timedOut: false,
      };
    } catch (err) {
      if (!signal.aborted) throw err;
      return { status: 0, contentType: '', bytes: Buffer.alloc(0), ms: performance.now() - started, timedOut: true };
    }
  }

  /** Sends an interaction to the endpoint; its HTTP response becomes the initial response, once. */
  deliver(payload: Record<string, unknown>, state: InteractionState): void {
    state.http = this.#exchange(payload, state);
  }

  async #exchange(payload: Record<string, unknown>, state: InteractionState): Promise<HttpExchange> {
    const raw = await this.post(null, { body: payload });
    const text = raw.bytes.toString('utf8');
    secretWatch.payload(`fake Discord: the response to interaction ${state.id}`, `content-type: ${raw.contentType}\n\n${text}`);
    const fail = (failure: string, body: unknown = undefined, files: HttpExchange['files'] = []): HttpExchange => {
      state.failure = failure;
      return { status: raw.status, contentType: raw.contentType, body, files, ms: raw.ms, failure };
    };
    if (raw.timedOut) return fail(`${FAILED}: no response within ${this.deps.callbackDeadlineMs} ms`);
    if (raw.status !== 200) return fail(`${FAILED}: the endpoint answered HTTP ${raw.status}`);

    let parsed: Awaited<ReturnType<typeof parseBody>>;
    try {
      parsed = await parseBody(raw.contentType, raw.bytes);
    } catch (e) {
      if (!(e instanceof BodyParseError)) throw e;
      return fail(`${FAILED}: ${e.message}`);
    }
    const response = (parsed.body ?? {}) as { type?: number; data?: Record<string, unknown> };
    const reply = this.deps.endpoints().respond(state, response, parsed.files);
    const call: RecordedCall = {
      method: 'POST',
      path: `/interactions/${state.id}/${state.token}/callback`,
      route: '/interactions/:interactionId/:interactionToken/callback',
      query: {},
      body: parsed.body,
      files: parsed.files,
      headers: { 'content-type': raw.contentType },
      status: reply.status,
      at: Date.now(),
      via: 'http-response',
    };
    this.deps.recorder.record(call, `HTTP response to interaction ${state.id}\ncontent-type: ${raw.contentType}\n\n${text}`);
    if (reply.status >= 300) {
      const why = (reply.json as { message?: string } | undefined)?.message ?? `status ${reply.status}`;
      return fail(`${FAILED}: the response was refused (${why})`, parsed.body, parsed.files);
    }
    return { status: raw.status, contentType: raw.contentType, body: parsed.body, files: parsed.files, ms: raw.ms };
  }
}

function safeJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}
