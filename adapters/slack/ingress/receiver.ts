import { Worker } from 'node:worker_threads';
import type { App, Logger as BoltLogger, LogLevel, Receiver } from '@slack/bolt';
import { startRouteServer, type HttpRoute, type RouteServer } from '../../../src/http/routes.js';
import type { Logger } from '../../../src/log.js';
import type { IngressMessage, IngressSettings, MainMessage, RefusalReason } from './protocol.js';

export interface IngressReceiverOptions {
  signingSecret: string;
  /** The path Slack posts to, `/slack/events`. */
  endpoint: string;
  /** Answered on the main thread (on a loopback server the thread forwards to), served on the same port. */
  routes?: readonly HttpRoute[];
  /** Where Bolt's receiver lines from the thread go. */
  logger: BoltLogger;
  logLevel: LogLevel;
  log: Logger;
  /** Told of every request refused before it could run anything (counted in /metrics). */
  onRefused?: (reason: RefusalReason) => void;
  /** The thread's module; by default `thread.ts`/`thread.js` next to this file. */
  threadModule?: URL;
}

/** After an unexpected exit of the thread, how long before it is started again. */
const RESTART_DELAY_MS = 1_000;

/**
 * A Bolt receiver whose HTTP server runs on a thread of its own (`thread.ts`), so that Slack's
 * acknowledgements never wait for the main thread. Events reach `app.processEvent` here as they
 * would from Bolt's HTTPReceiver, with an `ack` that answers on the thread.
 *
 * Running from the TypeScript sources the thread loads through tsx (`dev-thread.mjs`), which costs
 * it start-up time and memory that the compiled build does not pay.
 */
export class IngressReceiver implements Receiver {
  private app: App | undefined;
  private thread: Worker | undefined;
  private address: { host: string; port: number } | undefined;
  private stopping = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private routesServer: RouteServer | undefined;

  constructor(private readonly options: IngressReceiverOptions) {}

  init(app: App): void {
    this.app = app;
  }

  /** Resolves with the bound port once the thread listens; rejects as `listen` would (EADDRINUSE...). */
  async start(port: number, host: string): Promise<{ port: number }> {
    this.stopping = false;
    if (this.options.routes?.length && !this.routesServer) this.routesServer = await startRouteServer(this.options.routes, 0, '127.0.0.1');
    let bound: number;
    try {
      bound = await this.spawn(port, host);
    } catch (err) {
      await this.routesServer?.close();
      this.routesServer = undefined;
      throw err;
    }
    this.address = { host, port: bound };
    return { port: bound };
  }

  /** Stops listening; events already handed over carry on in the app. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const thread = this.thread;
    this.thread = undefined;
    const routesServer = this.routesServer;
    this.routesServer = undefined;
    if (thread) await this.stopThread(thread);
    await routesServer?.close();
  }

  private stopThread(thread: Worker): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => resolve();
      thread.once('exit', done);
      thread.on('message', (message: IngressMessage) => {
        if (message.op === 'stopped') void thread.terminate();
      });
      thread.postMessage({ op: 'stop' } satisfies MainMessage);
    });
  }

  private spawn(port: number, host: string): Promise<number> {
    const { options } = this;
    const settings: IngressSettings = {
      signingSecret: options.signingSecret,
      host,
      port,
      endpoint: options.endpoint,
      routes: (options.routes ?? []).map(({ method, path }) => ({ method, path })),
      ...(this.routesServer ? { routesPort: this.routesServer.port } : {}),
      logLevel: options.logLevel,
    };
    const fromSource = import.meta.url.endsWith('.ts');
    const thread = new Worker(options.threadModule ?? new URL(fromSource ? './dev-thread.mjs' : './thread.js', import.meta.url), {
      workerData: settings,
      // The thread's own output would bypass the log's scrubbing; it writes nothing but messages.
      stdout: true,
      stderr: true,
      execArgv: [],
    });
    this.thread = thread;
    return new Promise<number>((resolve, reject) => {
      let started = false;
      thread.on('message', (message: IngressMessage) => {
        switch (message.op) {
          case 'listening':
            started = true;
            resolve(message.port);
            break;
          case 'start-failed':
            void thread.terminate();
            reject(Object.assign(new Error(message.message), message.code ? { code: message.code } : {}));
            break;
          default:
            this.receive(thread, message);
        }
      });
      thread.on('error', (err) => {
        options.log.error({ err }, 'slack: the ingress thread failed');
      });
      thread.on('exit', (code) => {
        if (!started) return reject(new Error(`the Slack ingress thread exited (${code}) before listening`));
        if (this.stopping || this.thread !== thread) return;
        this.thread = undefined;
        options.log.error({ code }, 'slack: the ingress thread stopped unexpectedly; starting it again');
        this.restartTimer = setTimeout(() => this.restart(), RESTART_DELAY_MS);
      });
    });
  }

  private restart(): void {
    if (this.stopping || !this.address) return;
    const { host, port } = this.address;
    this.spawn(port, host).then(
      () => this.options.log.info({ host, port }, 'slack: the ingress thread listens again'),
      (err: unknown) => {
        this.options.log.error({ err }, 'slack: the ingress thread could not start again');
        if (!this.stopping) this.restartTimer = setTimeout(() => this.restart(), RESTART_DELAY_MS);
      },
    );
  }

  private receive(thread: Worker, message: IngressMessage): void {
    const reply = (m: MainMessage) => thread.postMessage(m);
    switch (message.op) {
      case 'event': {
        const { id, body, retryNum, retryReason } = message;
        const app = this.app;
        if (!app) return;
        const ack = async (response?: unknown): Promise<void> => {
          if (id !== undefined) reply({ op: 'ack', id, ...(response !== undefined ? { response } : {}) });
        };
        const event = {
          body,
          ack,
          customProperties: {},
          ...(retryNum !== undefined ? { retryNum } : {}),
          ...(retryReason !== undefined ? { retryReason } : {}),
        };
        app.processEvent(event).then(
          () => id !== undefined && reply({ op: 'settled', id }),
          (err: unknown) => {
            if (id !== undefined) reply({ op: 'settled', id, error: err instanceof Error ? err.message : 'failed' });
            else this.options.log.error({ err }, 'slack: an acknowledged event failed');
          },
        );
        break;
      }
      case 'log':
        this.options.logger[message.level](message.text);
        break;
      case 'refused':
        this.options.onRefused?.(message.reason);
        break;
    }
  }
}
