import type { ServerResponse } from 'node:http';
import type { RESTOptions, ResponseLike } from 'discord.js';

type MakeRequest = RESTOptions['makeRequest'];

const CALLBACK = /\/interactions\/(\d{5,25})\/([^/?]+)\/callback$/;

interface Open {
  token: string;
  res: ServerResponse;
}

const noContent = (): ResponseLike => new Response(null, { status: 204 }) as unknown as ResponseLike;
/** What Discord says to a callback for an interaction it no longer waits for. */
const unknownInteraction = (): ResponseLike =>
  new Response(JSON.stringify({ message: 'Unknown interaction', code: 10062 }), {
    status: 404,
    headers: { 'content-type': 'application/json' },
  }) as unknown as ResponseLike;

/**
 * The initial responses of interactions that arrived over HTTP. discord.js sends an interaction's
 * first answer as `POST /interactions/{id}/{token}/callback`; while that interaction's request from
 * Discord is still open, the callback becomes the response to it instead: the very body discord.js
 * built, JSON or multipart/form-data with `payload_json` and `files[n]`. Everything afterwards
 * (edits, follow-ups, and a second callback, which Discord then refuses) goes to Discord as usual,
 * so every discord.js interaction method works unchanged.
 */
export class InitialResponses {
  private readonly open = new Map<string, Open>();

  constructor(private readonly next: MakeRequest) {}

  /** For the REST client's `makeRequest`: catches the callbacks of open interactions, passes on the rest. */
  readonly makeRequest: MakeRequest = async (url, init) => {
    const m = CALLBACK.exec(new URL(url).pathname);
    const open = m ? this.open.get(m[1]!) : undefined;
    if (!m || !open || open.token !== decodeURIComponent(m[2]!)) return this.next(url, init);
    this.open.delete(m[1]!);
    const { type, bytes } = await encode(init.body, init.headers);
    return (await write(open.res, type, bytes)) ? noContent() : unknownInteraction();
  };

  /** Keeps `res` as the place of interaction `id`'s initial response until it is answered or Discord hangs up. */
  hold(id: string, token: string, res: ServerResponse): void {
    this.open.set(id, { token, res });
    res.once('close', () => {
      if (this.open.get(id)?.res === res) this.open.delete(id);
    });
  }

  /** Answers with `body` if nothing has answered yet; true when this call did. */
  async answerIfOpen(id: string, body: unknown): Promise<boolean> {
    const open = this.open.get(id);
    if (!open) return false;
    this.open.delete(id);
    return write(open.res, 'application/json', Buffer.from(JSON.stringify(body)));
  }
}

/** The request body as bytes and its content type; a FormData is serialised with its boundary by the platform's own encoder. */
async function encode(body: unknown, headers: unknown): Promise<{ type: string; bytes: Buffer }> {
  if (typeof body === 'string') {
    const declared = Object.entries((headers ?? {}) as Record<string, string>).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
    return { type: declared ?? 'application/json', bytes: Buffer.from(body) };
  }
  const encoded = new Response(body as ConstructorParameters<typeof Response>[0]);
  return { type: encoded.headers.get('content-type') ?? 'application/octet-stream', bytes: Buffer.from(await encoded.arrayBuffer()) };
}

/** Resolves true once the response is handed to the connection, false if Discord hung up first. */
function write(res: ServerResponse, type: string, bytes: Buffer): Promise<boolean> {
  if (res.writableEnded || res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const finished = () => settle(true);
    const closed = () => settle(res.writableFinished);
    const settle = (ok: boolean) => {
      res.off('finish', finished);
      res.off('close', closed);
      resolve(ok);
    };
    res.once('finish', finished);
    res.once('close', closed);
    res.writeHead(200, { 'content-type': type, 'content-length': bytes.length });
    res.end(bytes);
  });
}
