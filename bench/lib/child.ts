import { fork, type ChildProcess } from 'node:child_process';

export interface ChildMessage {
  id: number;
  ok: boolean;
  error?: string;
  [key: string]: unknown;
}

/**
 * A module run in its own Node process, spoken to over IPC: request `{id, op, ...}`,
 * answer `{id, ok, ...}`; the child announces itself with id 0 once it is ready.
 */
export interface ChildHandle<Ready> {
  ready: Ready;
  pid: number | undefined;
  call(op: string, payload?: Record<string, unknown>): Promise<ChildMessage>;
  close(): Promise<void>;
}

/** `entry` is TypeScript, run through the loader, unless `compiled` (JavaScript from `npm run build`). */
export async function forkChild<Ready>(
  entry: string,
  argv: string[] = [],
  nodeFlags: string[] = [],
  compiled = false,
): Promise<ChildHandle<Ready>> {
  const execArgv = compiled ? nodeFlags : [...nodeFlags, '--import', 'tsx'];
  const proc: ChildProcess = fork(entry, argv, { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let nextId = 1;
  const pending = new Map<number, { resolve: (m: ChildMessage) => void; reject: (e: Error) => void }>();
  let onReady!: (m: ChildMessage) => void;
  const ready = new Promise<ChildMessage>((resolve) => (onReady = resolve));
  proc.on('message', (raw) => {
    const msg = raw as ChildMessage;
    if (msg.id === 0) return onReady(msg);
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.ok) p.resolve(msg);
    else p.reject(new Error(msg.error ?? `${entry} failed`));
  });
  const exited = new Promise<never>((_, reject) =>
    proc.once('exit', (code) => {
      const err = new Error(`${entry} exited (${code})`);
      for (const p of pending.values()) p.reject(err);
      pending.clear();
      reject(err);
    }),
  );
  exited.catch(() => undefined);
  const call = (op: string, payload: Record<string, unknown> = {}) =>
    new Promise<ChildMessage>((resolve, reject) => {
      if (proc.exitCode !== null || !proc.connected) return reject(new Error(`${entry} is not running`));
      const id = nextId++;
      pending.set(id, { resolve, reject });
      proc.send({ ...payload, op, id });
    });
  const first = await Promise.race([ready, exited]);
  let closing: Promise<void> | undefined;
  return {
    ready: first.ready as Ready,
    pid: proc.pid,
    call,
    close() {
      closing ??= (async () => {
        const timer = setTimeout(() => proc.kill('SIGKILL'), 5_000);
        const gone = new Promise<void>((resolve) => (proc.exitCode !== null ? resolve() : proc.once('exit', () => resolve())));
        await call('close').catch(() => undefined);
        await gone;
        clearTimeout(timer);
      })();
      return closing;
    },
  };
}

/** The child side: answers requests with `handle` and announces `ready`. */
export function serveParent(
  ready: unknown,
  handle: (msg: { op: string; [key: string]: unknown }) => Promise<Record<string, unknown>> | Record<string, unknown>,
  onClose: () => Promise<void>,
): void {
  const send = (m: ChildMessage) => process.send?.(m);
  process.on('message', (raw) => {
    const msg = raw as { id: number; op: string };
    if (msg.op === 'close') {
      void onClose().finally(() => {
        send({ id: msg.id, ok: true });
        process.disconnect?.();
        process.exit(0);
      });
      return;
    }
    Promise.resolve()
      .then(() => handle(msg))
      .then(
        (r) => send({ ...r, id: msg.id, ok: true }),
        (err: unknown) => send({ id: msg.id, ok: false, error: String(err) }),
      );
  });
  // The parent going away (a crash, Ctrl-C) must not leave this process running.
  process.on('disconnect', () => process.exit(0));
  send({ id: 0, ok: true, ready });
}
