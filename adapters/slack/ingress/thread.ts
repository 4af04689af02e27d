/**
 * The ingress thread: the HTTP server Slack posts to, verifying and acknowledging on a thread that
 * does nothing else. Commands and clicks are acknowledged here the moment they are verified and
 * handed to the main thread, whose event loop is busy drawing charts and delivering answers; while
 * a burst is still arriving they are handed over together once it pauses (`handover.ts`).
 *
 * This replaces Bolt's HTTPReceiver rather than running it here. Its checks are kept (signature,
 * body limit, `ssl_check`, `url_verification`, an unacknowledged event answered after 3 s) but not
 * its cost: it spent about 0.4 ms a request (a random key and two extra HMACs in its constant-time
 * compare, a stream reader, a timer and several promises per request), four times a bare server,
 * and in a burst of 500 commands that alone put the last acknowledgements past 150 ms.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseQuery } from 'node:querystring';
import { parentPort, workerData } from 'node:worker_threads';
import { pathOf } from '../../../src/http/routes.js';
import { guardRequestAge, MAX_SKEW_SECONDS } from '../signature.js';
import { Handover } from './handover.js';
import { LRUCache } from 'lru-cache';
import { acknowledgedOnArrival, type IngressMessage, type IngressSettings, type LogLevelName, type MainMessage } from './protocol.js';

/** Bolt's default body limit. */
const BODY_LIMIT = 4 * 1024 * 1024;
/** Bolt's: an event nobody acknowledged is answered with a 404 after this long. */
const UNACKNOWLEDGED_MS = 3_001;

const port = parentPort;
if (!port) throw new Error('the Slack ingress runs as a worker thread');
const settings = workerData as IngressSettings;
const send = (message: IngressMessage) => port.postMessage(message);

const RANK: Record<LogLevelName, number> = { debug: 0, info: 1, warn: 2, error: 3 };
const floor = RANK[settings.logLevel as LogLevelName] ?? RANK.info;
const log = (level: LogLevelName, text: string) => {
  if (RANK[level] >= floor) send({ op: 'log', level, text });
};

let nextId = 0;
/** Events the main thread acknowledges: their response, and the timer that answers if it never does. */
const awaitingAck = new Map<number, { res: ServerResponse; timer: NodeJS.Timeout }>();
const handover = new Handover<IngressMessage>(send);

/**
 * Signatures already taken within the five minutes a timestamp stays acceptable. Slack signs each
 * delivery anew (a retry too), so the same signature twice is someone replaying a captured
 * request. Kept per replica: a replay sent to another replica is caught there only for events
 * (by their id, on the main thread).
 */
const taken = new LRUCache<string, true>({ max: 100_000, ttl: (MAX_SKEW_SECONDS + 60) * 1000 });

function answer(res: ServerResponse, status: number, body?: string, contentType?: string): void {
  if (res.headersSent) return;
  res.writeHead(status, body !== undefined && contentType ? { 'content-type': contentType } : undefined);
  res.end(body);
}

/** Bolt's `buildContentResponse`: nothing, text, or JSON. */
function answerAck(res: ServerResponse, response: unknown): void {
  if (response === undefined || response === null || response === '') answer(res, 200);
  else if (typeof response === 'string') answer(res, 200, response);
  else answer(res, 200, JSON.stringify(response), 'application/json');
}

function signatureMatches(timestamp: string, body: string, signature: string | string[] | undefined): boolean {
  if (typeof signature !== 'string' || !signature.startsWith('v0=')) return false;
  const expected = createHmac('sha256', settings.signingSecret).update(`v0:${timestamp}:${body}`).digest();
  const given = Buffer.from(signature.slice(3), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function readBody(req: IncomingMessage, done: (body: Buffer | 'too large' | 'aborted') => void): void {
  const declared = Number(req.headers['content-length']);
  if (declared > BODY_LIMIT) {
    req.resume();
    return done('too large');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  const finish = (result: Buffer | 'too large' | 'aborted') => {
    if (finished) return;
    finished = true;
    done(result);
  };
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > BODY_LIMIT) {
      req.resume();
      req.removeAllListeners('data');
      return finish('too large');
    }
    chunks.push(chunk);
  });
  req.on('end', () => finish(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
  req.on('error', () => finish('aborted'));
}

/** A POST to the events endpoint, its timestamp already within the window (`guardRequestAge`). */
function onSlackRequest(req: IncomingMessage, res: ServerResponse): void {
  readBody(req, (raw) => {
    if (raw === 'aborted') return;
    if (raw === 'too large') {
      log('warn', `request body exceeded the maximum allowed size (limit: ${BODY_LIMIT} bytes)`);
      return answer(res, 413);
    }
    const text = raw.toString('utf8');
    const form = firstHeader(req.headers['content-type'])?.split(';')[0]?.trim() === 'application/x-www-form-urlencoded';
    const query = form ? parseQuery(text) : undefined;
    // Slack checks TLS with a bare, unsigned `ssl_check=1`; nothing else in it is read.
    if (query?.ssl_check === '1') return answer(res, 200);
    const timestamp = firstHeader(req.headers['x-slack-request-timestamp']) ?? '';
    const signature = req.headers['x-slack-signature'];
    if (!signatureMatches(timestamp, text, signature)) {
      log('warn', 'request signature did not verify, refused');
      send({ op: 'refused', reason: 'bad_signature' });
      return answer(res, 401);
    }
    // Events are told apart by their event_id on the main thread, across replicas; here only
    // commands and interactions, which Slack never sends twice.
    const seenKey = query ? `${timestamp}:${String(signature)}` : undefined;
    if (seenKey !== undefined && taken.has(seenKey)) {
      log('warn', 'a request already taken arrived again with the same signature (a replay), refused');
      send({ op: 'refused', reason: 'replayed' });
      return answer(res, 401);
    }
    if (seenKey !== undefined) taken.set(seenKey, true);
    let body: unknown;
    try {
      body = query ? (typeof query.payload === 'string' ? JSON.parse(query.payload) : { ...query }) : JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      log('warn', 'malformed request body, refused');
      return answer(res, 400);
    }
    const event = body as Record<string, unknown>;
    if (event.type === 'url_verification') return answer(res, 200, JSON.stringify({ challenge: event.challenge }), 'application/json');
    const retryNum = Number.parseInt(firstHeader(req.headers['x-slack-retry-num']) ?? '', 10);
    const retryReason = firstHeader(req.headers['x-slack-retry-reason']);
    const extra = { ...(Number.isNaN(retryNum) ? {} : { retryNum }), ...(retryReason !== undefined ? { retryReason } : {}) };
    if (acknowledgedOnArrival(event)) {
      answer(res, 200);
      return handover.offer({ op: 'event', body: event, ...extra });
    }
    const id = ++nextId;
    const timer = setTimeout(() => {
      awaitingAck.delete(id);
      log('error', 'an incoming event was not acknowledged within 3 seconds');
      answer(res, 404);
    }, UNACKNOWLEDGED_MS);
    awaitingAck.set(id, { res, timer });
    send({ op: 'event', id, body: event, ...extra });
  });
}

/** Reused connections to the main thread's loopback server. */
const toMain = new Agent({ keepAlive: true });

/**
 * Every other route (health, metrics, OAuth pages, Discord interactions) is answered by the main
 * thread's own server on loopback, with the request as it came, so its handlers get real requests.
 * No timeout of its own: if the main thread cannot answer /healthz, a liveness probe should see that.
 */
function onRouteRequest(req: IncomingMessage, res: ServerResponse): void {
  if (settings.routesPort === undefined) {
    req.resume();
    return answer(res, 404);
  }
  const forwarded = request(
    {
      host: '127.0.0.1',
      port: settings.routesPort,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, 'x-forwarded-for': req.socket.remoteAddress ?? '' },
      agent: toMain,
    },
    (from) => {
      res.writeHead(from.statusCode ?? 502, from.headers);
      from.pipe(res);
    },
  );
  forwarded.on('error', () => {
    log('error', `the main thread did not answer ${pathOf(req.url)}`);
    answer(res, 502);
  });
  req.pipe(forwarded);
}

const listener = guardRequestAge(
  (req, res) => {
    const path = pathOf(req.url);
    if (path === settings.endpoint) {
      if (req.method === 'POST') return onSlackRequest(req, res);
      req.resume();
      return answer(res, 405);
    }
    if (settings.routes.some((r) => r.path === path)) return onRouteRequest(req, res);
    req.resume();
    answer(res, 404);
  },
  {
    endpoints: [settings.endpoint],
    onReject: ({ path, reason }) => {
      log('warn', `request timestamp outside the 5-minute window (${reason}) on ${path}, refused`);
      send({ op: 'refused', reason: 'stale' });
    },
  },
);

const server = createServer(listener);
// Idle connections are kept longer than the callers (Slack, or a load balancer in front, commonly
// 60 s) keep theirs: otherwise the server closes one just as a caller reuses it, and that request
// fails ("socket hang up", a 502 from a balancer). Node's 5 s default races a busy caller.
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;

port.on('message', (message: MainMessage) => {
  switch (message.op) {
    case 'ack': {
      const waiting = awaitingAck.get(message.id);
      if (!waiting) return;
      clearTimeout(waiting.timer);
      awaitingAck.delete(message.id);
      answerAck(waiting.res, message.response);
      break;
    }
    case 'settled': {
      // Done without acknowledging: a failure is a 500, as Bolt's receiver answers; otherwise the
      // timer stays, as Bolt leaves an event no listener took.
      const waiting = awaitingAck.get(message.id);
      if (!waiting || message.error === undefined) return;
      clearTimeout(waiting.timer);
      awaitingAck.delete(message.id);
      answer(waiting.res, 500);
      break;
    }
    case 'stop':
      handover.close();
      server.close(() => send({ op: 'stopped' }));
      server.closeIdleConnections();
      toMain.destroy();
      break;
  }
});

server.once('error', (err: NodeJS.ErrnoException) =>
  send({ op: 'start-failed', message: err.message, ...(err.code ? { code: err.code } : {}) }),
);
server.listen(settings.port, settings.host, () => send({ op: 'listening', port: (server.address() as AddressInfo).port }));
