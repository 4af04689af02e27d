import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import type { APIUser } from 'discord.js';
import { secretWatch } from '../../helpers/secret-watch.js';
import { randomToken } from './ids.js';
import type { Recorder } from './recorder.js';
import type { World } from './world.js';

const OP = { dispatch: 0, heartbeat: 1, identify: 2, resume: 6, reconnect: 7, invalidSession: 9, hello: 10, heartbeatAck: 11 } as const;

// GUILD_MEMBERS, GUILD_PRESENCES, MESSAGE_CONTENT: Discord refuses these (close 4014)
// unless they are switched on for the application in the developer portal.
export const PRIVILEGED_INTENTS = (1 << 1) | (1 << 8) | (1 << 15);

export interface GatewayOptions {
  token: string;
  applicationId: string;
  botUser: APIUser;
  world: World;
  recorder: Recorder;
  heartbeatIntervalMs: number;
  /** Privileged intents enabled for the application; others make IDENTIFY fail with 4014. */
  privilegedIntents: number;
}

export interface IdentifyRecord {
  intents: number;
  shard: [number, number] | undefined;
  properties: Record<string, unknown>;
  compress: boolean;
  presence: unknown;
  /** Whether the token matched; the token itself is kept out of the record. */
  tokenValid: boolean;
  at: number;
}

export interface ConnectionRecord {
  index: number;
  /** `/` for the gateway URL, `/resume` for `resume_gateway_url`. */
  path: string;
  query: Record<string, string>;
  openedAt: number;
  closedAt: number | null;
  closeCode: number | null;
  /** Who closed it: the fake (a test control or a protocol violation) or the client. */
  closedBy: 'server' | 'client' | null;
}

export type GatewayEventKind = 'connect' | 'identify' | 'ready' | 'resume' | 'resumed' | 'invalid-session' | 'heartbeat' | 'close';

interface Session {
  id: string;
  seq: number;
  /** Sent dispatches, replayed on RESUME. */
  events: { op: 0; t: string; s: number; d: unknown }[];
  socket: WebSocket | null;
  valid: boolean;
}

interface Connection {
  record: ConnectionRecord;
  socket: WebSocket;
  session: Session | null;
}

interface Waiter {
  kind: GatewayEventKind;
  count: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

export class Gateway {
  readonly identifies: IdentifyRecord[] = [];
  readonly connections: ConnectionRecord[] = [];
  readonly #wss = new WebSocketServer({ noServer: true });
  readonly #live = new Set<Connection>();
  readonly #sessions = new Map<string, Session>();
  readonly #counts = new Map<GatewayEventKind, number>();
  readonly #waiters = new Set<Waiter>();
  #current: Session | null = null;
  url = '';

  constructor(private readonly opts: GatewayOptions) {}

  get connectionCount(): number {
    return this.count('connect');
  }

  get identifyCount(): number {
    return this.count('identify');
  }

  get resumeCount(): number {
    return this.count('resume');
  }

  count(kind: GatewayEventKind): number {
    return this.#counts.get(kind) ?? 0;
  }

  /** Resolves once `kind` has happened at least `count` times in total. */
  waitFor(kind: GatewayEventKind, count = 1, timeoutMs = 5_000): Promise<void> {
    if (this.count(kind) >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        kind,
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(new Error(`gateway: expected ${count} × ${kind}, saw ${this.count(kind)} within ${timeoutMs}ms`));
      }, timeoutMs);
      this.#waiters.add(waiter);
    });
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'ws://localhost');
    if (url.pathname !== '/' && url.pathname !== '/resume') {
      socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
      return;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#onConnection(ws, url));
  }

  /** Sends a dispatch on the current session; buffered for replay when its socket is down. */
  dispatch(t: string, d: unknown): void {
    const session = this.#current;
    if (!session?.valid) throw new Error('fake Discord gateway: no identified client session to dispatch to');
    this.#emitDispatch(session, t, d);
  }

  /**
   * Closes every live socket. A code in 1000-4999 sends a close frame; `1006` (or
   * `'abrupt'`) drops the TCP connection without one, as a network failure would.
   */
  dropConnections(code: number | 'abrupt' = 4000): void {
    for (const conn of [...this.#live]) this.#close(conn, code === 'abrupt' ? 1006 : code, 'dropped by test');
  }

  /** Asks connected clients to reconnect and resume (op 7), as Discord does before maintenance. */
  requestReconnect(): void {
    for (const conn of this.#live) conn.socket.send(JSON.stringify({ op: OP.reconnect, d: null }));
  }

  /** Forgets every session so the next RESUME gets INVALID_SESSION and the client must identify again. */
  invalidateSessions(): void {
    for (const session of this.#sessions.values()) session.valid = false;
  }

  async close(): Promise<void> {
    for (const waiter of this.#waiters) waiter.reject(new Error('fake Discord closed'));
    this.#waiters.clear();
    for (const conn of [...this.#live]) conn.socket.terminate();
    this.#live.clear();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }

  #onConnection(socket: WebSocket, url: URL): void {
    const record: ConnectionRecord = {
      index: this.connections.length,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      openedAt: Date.now(),
      closedAt: null,
      closeCode: null,
      closedBy: null,
    };
    this.connections.push(record);
    const conn: Connection = { record, socket, session: null };
    this.#live.add(conn);
    this.#bump('connect');

    socket.on('close', (code) => {
      this.#live.delete(conn);
      if (record.closedAt === null) {
        record.closedAt = Date.now();
        record.closeCode = code;
        record.closedBy = 'client';
        // A client closing with 1000/1001 ends its session; any other code keeps it resumable.
        if (conn.session && (code === 1000 || code === 1001)) conn.session.valid = false;
      }
      if (conn.session?.socket === socket) conn.session.socket = null;
      this.#bump('close');
    });
    socket.on('error', () => {});
    socket.on('message', (data, isBinary) => this.#onMessage(conn, data, isBinary));

    if (record.query.v !== '10') return this.#close(conn, 4012, 'Invalid API version');
    if (record.query.encoding !== 'json') return this.#close(conn, 4002, 'Decode error');
    if (record.query.compress) return this.#close(conn, 4002, 'Transport compression is not supported by the fake');
    this.#send(conn, { op: OP.hello, d: { heartbeat_interval: this.opts.heartbeatIntervalMs } });
  }

  #onMessage(conn: Connection, data: RawData, isBinary: boolean): void {
    const text = Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
    this.opts.recorder.recordRaw(`GATEWAY ${conn.record.path}\n\n${text}`);
    let payload: { op?: unknown; d?: unknown };
    try {
      if (isBinary) throw new Error('binary');
      payload = JSON.parse(text) as typeof payload;
    } catch {
      secretWatch.payload(`fake Discord gateway ${conn.record.path} frame`, text);
      return this.#close(conn, 4002, 'Decode error');
    }
    secretWatch.payload(`fake Discord gateway ${conn.record.path} op ${String(payload.op)}`, withoutCredential(payload));

    switch (payload.op) {
      case OP.heartbeat:
        this.#bump('heartbeat');
        return this.#send(conn, { op: OP.heartbeatAck });
      case OP.identify:
        return this.#identify(conn, (payload.d ?? {}) as Record<string, unknown>);
      case OP.resume:
        return this.#resume(conn, (payload.d ?? {}) as Record<string, unknown>);
      default:
        if (!conn.session) return this.#close(conn, 4003, 'Not authenticated');
        // Presence and voice updates and the like are accepted and ignored.
        if (typeof payload.op !== 'number' || payload.op > 40) return this.#close(conn, 4001, 'Unknown opcode');
    }
  }

  #identify(conn: Connection, d: Record<string, unknown>): void {
    const record: IdentifyRecord = {
      intents: typeof d.intents === 'number' ? d.intents : Number.NaN,
      shard: Array.isArray(d.shard) ? (d.shard as [number, number]) : undefined,
      properties: (d.properties ?? {}) as Record<string, unknown>,
      compress: d.compress === true,
      presence: d.presence,
      tokenValid: d.token === this.opts.token,
      at: Date.now(),
    };
    this.identifies.push(record);
    this.#bump('identify');

    if (conn.session) return this.#close(conn, 4005, 'Already authenticated');
    if (!record.tokenValid) return this.#close(conn, 4004, 'Authentication failed');
    if (!Number.isInteger(record.intents) || record.intents < 0) return this.#close(conn, 4013, 'Invalid intent(s)');
    if ((record.intents & PRIVILEGED_INTENTS & ~this.opts.privilegedIntents) !== 0) {
      return this.#close(conn, 4014, 'Disallowed intent(s)');
    }
    if (record.shard && (record.shard[0] !== 0 || record.shard[1] !== 1)) return this.#close(conn, 4010, 'Invalid shard');

    const session: Session = { id: randomToken(16), seq: 0, events: [], socket: conn.socket, valid: true };
    this.#sessions.set(session.id, session);
    this.#current = session;
    conn.session = session;

    const { world, botUser, applicationId } = this.opts;
    this.#emitDispatch(session, 'READY', {
      v: 10,
      user: botUser,
      guilds: [...world.guilds.keys()].map((id) => ({ id, unavailable: true })),
      session_id: session.id,
      session_type: 'normal',
      resume_gateway_url: `${this.url}/resume`,
      shard: record.shard ?? [0, 1],
      application: { id: applicationId, flags: 0 },
      private_channels: [],
      relationships: [],
      presences: [],
      guild_join_requests: [],
      geo_ordered_rtc_regions: [],
      user_settings: {},
      _trace: ['fake-discord'],
    });
    const joinedAt = new Date(Date.now() - 86_400_000);
    for (const guild of world.guilds.values()) this.#emitDispatch(session, 'GUILD_CREATE', world.guildCreatePayload(guild, joinedAt));
    this.#bump('ready');
  }

  #resume(conn: Connection, d: Record<string, unknown>): void {
    this.#bump('resume');
    const session = typeof d.session_id === 'string' ? this.#sessions.get(d.session_id) : undefined;
    if (d.token !== this.opts.token) return this.#close(conn, 4004, 'Authentication failed');
    if (!session?.valid) {
      this.#bump('invalid-session');
      // Discord waits a moment before answering an unresumable session; clients rely on it not being instant.
      setTimeout(() => this.#send(conn, { op: OP.invalidSession, d: false }), 50).unref();
      return;
    }
    if (session.socket && session.socket !== conn.socket) session.socket.terminate();
    conn.session = session;
    session.socket = conn.socket;
    this.#current = session;
    const after = typeof d.seq === 'number' ? d.seq : 0;
    for (const event of session.events) if (event.s > after) this.#send(conn, event);
    this.#emitDispatch(session, 'RESUMED', null);
    this.#bump('resumed');
  }

  #emitDispatch(session: Session, t: string, d: unknown): void {
    const event = { op: OP.dispatch, t, s: ++session.seq, d };
    session.events.push(event);
    if (session.events.length > 1_000) session.events.shift();
    if (session.socket && session.socket.readyState === WebSocket.OPEN) session.socket.send(JSON.stringify(event));
  }

  #send(conn: Connection, payload: object): void {
    if (conn.socket.readyState === WebSocket.OPEN) conn.socket.send(JSON.stringify(payload));
  }

  #close(conn: Connection, code: number, reason: string): void {
    conn.record.closedAt = Date.now();
    conn.record.closeCode = code;
    conn.record.closedBy = 'server';
    if (code === 1006) conn.socket.terminate();
    else conn.socket.close(code, reason);
  }

  #bump(kind: GatewayEventKind): void {
    const n = this.count(kind) + 1;
    this.#counts.set(kind, n);
    for (const waiter of [...this.#waiters]) {
      if (waiter.kind === kind && n >= waiter.count) {
        this.#waiters.delete(waiter);
        waiter.resolve();
      }
    }
  }
}

/**
 * IDENTIFY and RESUME carry the token to Discord by design, as the Authorization header does over
 * REST; everything else in the frame is still checked for secrets.
 */
function withoutCredential(payload: { op?: unknown; d?: unknown }): string {
  const d = payload.d as Record<string, unknown> | null | undefined;
  if ((payload.op !== OP.identify && payload.op !== OP.resume) || typeof d?.token !== 'string') return JSON.stringify(payload);
  secretWatch.secret(d.token, 'Discord token sent to the fake');
  return JSON.stringify({ ...payload, d: { ...d, token: '[credential]' } });
}
