import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer, type RawData } from 'ws';

export const SOCKET_PATH = '/socket';
const DEBUG_HOST = 'applink-fake-1';
const DEFAULT_ACK_MS = 3_000;
const DEFAULT_WAIT_MS = 2_000;

export interface EnvelopeInput {
  /** `slash_commands`, `interactive` (block_actions, view_submission...), `events_api`. */
  type: string;
  payload: Record<string, unknown>;
  /** Defaults to what Slack sends for the envelope type. */
  acceptsResponsePayload?: boolean;
  retryAttempt?: number;
  retryReason?: string;
  /** How long to wait for the ack; Slack gives apps 3 seconds. */
  timeoutMs?: number;
}

/** What the client wrote back for an envelope. @slack/socket-mode always sends a payload, `{}` for a bare ack. */
export interface SocketAck {
  envelope_id: string;
  payload?: Record<string, unknown>;
}

export interface SocketModeOptions {
  appId: string;
  /** Interval for server pings, as Slack sends them; 0 disables. */
  pingIntervalMs: number;
  recordRaw: (text: string) => void;
  /** Every frame a client sent, as text. */
  onClientMessage: (text: string) => void;
}

/** The part of the Socket Mode fake a test drives; the rest is wiring for the HTTP server. */
export type SocketModeControls = Pick<
  FakeSocketMode,
  'sendEnvelope' | 'sendDisconnect' | 'ping' | 'waitForConnection' | 'waitForDisconnect' | 'connectionCount' | 'connectionsOpened'
>;

interface PendingAck {
  type: string;
  resolve: (ack: SocketAck) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * The WebSocket half of Socket Mode. Connections are only accepted with a ticket
 * minted by apps.connections.open, mirroring how Slack's one-time WSS URLs work,
 * so a client that skips that call cannot connect.
 */
export class FakeSocketMode {
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly tickets = new Set<string>();
  private readonly open: WebSocket[] = [];
  private readonly pending = new Map<string, PendingAck>();
  private readonly changes = new EventEmitter();
  private opened = 0;

  constructor(private readonly options: SocketModeOptions) {}

  issueUrl(wsOrigin: string): string {
    const ticket = randomUUID();
    this.tickets.add(ticket);
    return `${wsOrigin}${SOCKET_PATH}?ticket=${ticket}&app_id=${this.options.appId}`;
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    const ticket = url.searchParams.get('ticket') ?? '';
    if (url.pathname !== SOCKET_PATH || !this.tickets.delete(ticket)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
  }

  connectionCount(): number {
    return this.open.length;
  }

  /** Connections accepted over the fake's lifetime; grows on every client reconnect. */
  connectionsOpened(): number {
    return this.opened;
  }

  /** Resolves once the nth connection (1-based, lifetime count) has been accepted and one is open. */
  waitForConnection(options: { nth?: number; timeoutMs?: number } = {}): Promise<void> {
    const nth = options.nth ?? 1;
    return this.waitUntil(
      () => this.opened >= nth && this.open.length > 0,
      options.timeoutMs ?? DEFAULT_WAIT_MS,
      `Socket Mode connection #${nth}`,
    );
  }

  /** Resolves once no client is connected, e.g. after stopping a Bolt app. */
  waitForDisconnect(timeoutMs = DEFAULT_WAIT_MS): Promise<void> {
    return this.waitUntil(() => this.open.length === 0, timeoutMs, 'all Socket Mode clients to disconnect');
  }

  sendEnvelope(input: EnvelopeInput): Promise<SocketAck> {
    const ws = this.open.at(-1);
    if (!ws) return Promise.reject(new Error(`fake Slack: cannot send ${input.type} envelope, no Socket Mode client is connected`));
    const envelopeId = randomUUID();
    const envelope: Record<string, unknown> = {
      envelope_id: envelopeId,
      payload: input.payload,
      type: input.type,
      accepts_response_payload: input.acceptsResponsePayload ?? acceptsResponsePayload(input),
    };
    if (input.type === 'events_api') {
      envelope.retry_attempt = input.retryAttempt ?? 0;
      envelope.retry_reason = input.retryReason ?? '';
    }
    const timeoutMs = input.timeoutMs ?? DEFAULT_ACK_MS;
    const acked = new Promise<SocketAck>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(envelopeId);
        reject(new Error(`fake Slack: no ack for ${input.type} envelope ${envelopeId} within ${timeoutMs}ms`));
      }, timeoutMs);
      this.pending.set(envelopeId, { type: input.type, resolve, reject, timer });
    });
    this.send(ws, envelope);
    return acked;
  }

  /** Slack asks clients to reconnect this way before it recycles a connection. */
  sendDisconnect(reason: 'warning' | 'refresh_requested' | 'link_disabled' = 'refresh_requested'): void {
    for (const ws of this.open) this.send(ws, { type: 'disconnect', reason, debug_info: { host: DEBUG_HOST } });
  }

  /** Pings every open connection and resolves when all have answered with a pong. */
  async ping(timeoutMs = DEFAULT_WAIT_MS): Promise<void> {
    if (this.open.length === 0) throw new Error('fake Slack: cannot ping, no Socket Mode client is connected');
    await Promise.all(
      this.open.map(
        (ws) =>
          new Promise<void>((resolve, reject) => {
            const timer = setTimeout(() => {
              ws.off('pong', onPong);
              reject(new Error(`fake Slack: no pong within ${timeoutMs}ms`));
            }, timeoutMs);
            const onPong = (): void => {
              clearTimeout(timer);
              resolve();
            };
            ws.once('pong', onPong);
            ws.ping();
          }),
      ),
    );
  }

  async close(): Promise<void> {
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(new Error(`fake Slack closed before ${pending.type} envelope ${id} was acked`));
    }
    this.pending.clear();
    for (const ws of [...this.open]) ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private accept(ws: WebSocket): void {
    this.open.push(ws);
    this.opened += 1;
    const pinger = this.options.pingIntervalMs > 0 ? setInterval(() => ws.ping(), this.options.pingIntervalMs) : undefined;
    ws.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    ws.on('close', () => {
      clearInterval(pinger);
      const index = this.open.indexOf(ws);
      if (index >= 0) this.open.splice(index, 1);
      this.changes.emit('change');
    });
    // Errors surface as a close right after; listening keeps them from crashing the process.
    ws.on('error', () => undefined);
    this.send(ws, {
      type: 'hello',
      num_connections: this.open.length,
      debug_info: { host: DEBUG_HOST, build_number: 1, approximate_connection_time: 18060 },
      connection_info: { app_id: this.options.appId },
    });
    this.changes.emit('change');
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    const text = Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(toBuffers(data)).toString('utf8');
    this.options.recordRaw(`WS ${SOCKET_PATH} <- ${isBinary ? '(binary) ' : ''}${text}`);
    this.options.onClientMessage(text);
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    const envelopeId = (message as { envelope_id?: unknown } | null)?.envelope_id;
    if (typeof envelopeId !== 'string') return;
    const pending = this.pending.get(envelopeId);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.pending.delete(envelopeId);
    pending.resolve(message as SocketAck);
  }

  private send(ws: WebSocket, message: Record<string, unknown>): void {
    const text = JSON.stringify(message);
    this.options.recordRaw(`WS ${SOCKET_PATH} -> ${text}`);
    ws.send(text);
  }

  private waitUntil(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const check = (): void => {
        if (!done()) return;
        clearTimeout(timer);
        this.changes.off('change', check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.changes.off('change', check);
        reject(new Error(`fake Slack: timed out after ${timeoutMs}ms waiting for ${what}`));
      }, timeoutMs);
      this.changes.on('change', check);
    });
  }
}

function acceptsResponsePayload(input: EnvelopeInput): boolean {
  if (input.type === 'slash_commands') return true;
  if (input.type !== 'interactive') return false;
  return input.payload.type === 'view_submission' || input.payload.type === 'block_suggestion';
}

function toBuffers(data: RawData): Buffer[] {
  if (Array.isArray(data)) return data;
  return [Buffer.from(data as ArrayBuffer)];
}
