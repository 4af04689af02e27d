import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestHead, secretWatch } from '../../helpers/secret-watch.js';
import { type FailOptions, type Fault, FaultPlan, type HangOptions, type HoldOptions, type RateLimitOptions } from './faults.js';
import { type RecordedRequest, type RequestFilter, RequestLog } from './recorder.js';

/**
 * The HTTP side shared by the fakes of services polbot calls outside chat (PagerDuty, a webhook
 * receiver): real HTTP on 127.0.0.1 with an ephemeral port, a body size limit, the faults a test
 * schedules, every request recorded, and every request shown to the suite's secret check. What a
 * request means is the fake's `handle`.
 */

export interface Reply {
  status: number;
  /** Sent as JSON; a string is sent as plain text. */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Received {
  method: string;
  path: string;
  headers: Record<string, string>;
  raw: Buffer;
}

export interface ReceiverOptions {
  /** Names the fake in errors, e.g. `fake PagerDuty`. */
  name: string;
  maxBodyBytes: number;
  tooLarge: Reply;
  /** The 429; the receiver adds Retry-After when the test asked for one. */
  throttled: Reply;
  failed(status: number): Reply;
  handle(request: Received): Reply;
  /**
   * The body as the secret check may see it. A credential the protocol carries in the body by
   * design (PagerDuty's routing key) is masked here, as the Authorization header is elsewhere.
   */
  watchedBody?(raw: string): string;
}

export interface Receiver {
  readonly origin: string;
  readonly log: RequestLog;
  readonly faults: FaultPlan;
  /** Requests a hold keeps open right now. */
  held(): number;
  /** Lets every held request through, to be handled and answered as usual. */
  releaseHeld(): void;
  close(): Promise<void>;
}

/** What every such fake offers a test: the requests it got, and faults for the next ones. */
export interface ReceiverControls {
  calls(filter?: RequestFilter): RecordedRequest[];
  waitFor(filter: RequestFilter, timeoutMs?: number): Promise<RecordedRequest>;
  rateLimitNext(options?: RateLimitOptions): void;
  failNext(options: FailOptions): void;
  hangNext(options: HangOptions): void;
  /** Keeps the next requests open, unanswered, until their client goes away or the test releases them. */
  holdNext(options: HoldOptions): void;
  held(): number;
  releaseHeld(): void;
  clearFaults(): void;
  close(): Promise<void>;
}

export function controlsOf(receiver: Receiver): ReceiverControls {
  return {
    calls: (filter) => receiver.log.calls(filter),
    waitFor: (filter, timeoutMs) => receiver.log.waitFor(filter, timeoutMs),
    rateLimitNext: (options) => receiver.faults.rateLimitNext(options),
    failNext: (options) => receiver.faults.failNext(options),
    hangNext: (options) => receiver.faults.hangNext(options),
    holdNext: (options) => receiver.faults.holdNext(options),
    held: () => receiver.held(),
    releaseHeld: () => receiver.releaseHeld(),
    clearFaults: () => receiver.faults.clear(),
    close: () => receiver.close(),
  };
}

/** Whether the request declares a JSON body, parameters such as `; charset=utf-8` aside. */
export function declaresJson(request: Received): boolean {
  return (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() === 'application/json';
}

export async function startReceiver(options: ReceiverOptions): Promise<Receiver> {
  const log = new RequestLog(options.name);
  const faults = new FaultPlan();
  /** Requests held by a hang; closing the receiver releases them at once. */
  const hung = new Set<() => void>();
  /** Requests kept open by a hold, each with what lets it go: its client leaving, a release, the receiver closing. */
  const holding = new Set<() => void>();
  let closing = false;

  const hang = (ms: number) =>
    new Promise<void>((resolve) => {
      const release = () => {
        clearTimeout(timer);
        hung.delete(release);
        resolve();
      };
      const timer = setTimeout(release, ms);
      hung.add(release);
    });

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const at = new Date();
    let abandoned = false;
    res.on('close', () => {
      if (!res.writableFinished) abandoned = true;
    });
    const hold = () =>
      new Promise<void>((resolve) => {
        const release = () => {
          holding.delete(release);
          res.off('close', release);
          resolve();
        };
        if (abandoned) return resolve();
        holding.add(release);
        res.once('close', release);
      });
    const { raw, bytes } = await readLimited(req, options.maxBodyBytes);
    const text = raw?.toString('utf8') ?? '';
    const { line, headers: shownHeaders } = requestHead(req);
    secretWatch.payload(`${options.name} ${line}`, `${shownHeaders}\n\n${options.watchedBody ? options.watchedBody(text) : text}`);

    const received: Received = {
      method: req.method ?? 'GET',
      path: new URL(req.url ?? '/', 'http://x').pathname,
      headers: flat(req),
      raw: raw ?? Buffer.alloc(0),
    };
    /** Nothing when a held request was lost on its way: the receiver never saw it to answer. */
    let reply: Reply | undefined;
    let fault: Fault | undefined;
    if (raw === undefined) {
      reply = options.tooLarge;
    } else {
      fault = faults.take();
      if (fault?.kind === 'hang') await hang(fault.ms);
      if (fault?.kind === 'hold') await hold();
      if (closing) {
        res.destroy();
        return;
      }
      if (fault?.kind === 'rate-limit') reply = throttled(options.throttled, fault.retryAfterSec);
      else if (fault?.kind === 'failure') reply = options.failed(fault.status);
      else if (!(fault?.kind === 'hold' && fault.lose === 'request' && abandoned)) reply = options.handle(received);
    }
    const call: RecordedRequest = {
      method: received.method,
      path: received.path,
      headers: received.headers,
      body: text,
      json: parseJson(text),
      bytes,
      status: reply?.status ?? 0,
      response: reply?.body,
      abandoned,
      at,
    };
    if (fault) call.fault = fault.kind;
    log.record(call);
    if (reply && !abandoned) send(res, reply);
  };

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        send(res, { status: 500, body: `${options.name} failed: ${error instanceof Error ? error.stack : String(error)}` });
      else res.destroy();
    });
  });
  const origin = await listenOnLoopback(server);

  return {
    origin,
    log,
    faults,
    held: () => holding.size,
    releaseHeld: () => {
      for (const release of [...holding]) release();
    },
    close: async () => {
      if (closing) return;
      closing = true;
      log.dispose();
      for (const release of [...hung, ...holding]) release();
      await closeNow(server);
    },
  };
}

/** Listens on 127.0.0.1 on a port of its own; resolves with the origin, `http://127.0.0.1:PORT`. */
export async function listenOnLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes a server at once: clients keep idle keep-alive sockets open, and close() alone would wait for them to time out. */
export async function closeNow(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await closed;
}

/**
 * The body, or undefined when it is over the limit. An oversized body is still read to its end
 * (and dropped), so the client gets the 413 rather than a connection reset mid-upload.
 */
async function readLimited(req: IncomingMessage, limit: number): Promise<{ raw: Buffer | undefined; bytes: number }> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of req) {
    bytes += (chunk as Buffer).length;
    if (bytes <= limit) chunks.push(chunk as Buffer);
  }
  return { raw: bytes <= limit ? Buffer.concat(chunks) : undefined, bytes };
}

function throttled(reply: Reply, retryAfterSec: number | undefined): Reply {
  return retryAfterSec === undefined ? reply : { ...reply, headers: { ...reply.headers, 'retry-after': String(retryAfterSec) } };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function flat(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

function send(res: ServerResponse, reply: Reply): void {
  const isText = typeof reply.body === 'string';
  const payload = reply.body === undefined ? '' : isText ? (reply.body as string) : JSON.stringify(reply.body);
  const type = reply.body === undefined ? {} : { 'content-type': isText ? 'text/plain; charset=utf-8' : 'application/json' };
  res.writeHead(reply.status, { ...type, ...reply.headers, 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}
