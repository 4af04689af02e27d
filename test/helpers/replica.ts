import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openPglite, openPostgres, type Db } from '../../src/db/connection.js';
import { createPostgresDatabase, type EngineName } from './digest/helpers.js';
import { secretWatch } from './secret-watch.js';

/**
 * Replicas in processes of their own, for the crash tests of digests and alerts: started by the
 * test, only ever signalled by their own pid, and configured by the environment given alone.
 */

const ROOT = resolve(import.meta.dirname, '../..');

export interface Worker {
  child: ChildProcess;
  /** What it printed on stdout (`ready`, `tick {...}`), line by line. */
  lines: string[];
  /** Its log lines (stderr, pino JSON). */
  logs: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first stdout (or log) line matching; rejects if the process exits first or time runs out. */
  line(match: (line: string) => boolean, timeoutMs: number, from?: 'stdout' | 'log'): Promise<string>;
  /** Lets it start ticking (for scripts that wait for `go` on stdin). */
  go(): void;
}

/** Every replica started, to be killed (by its own pid) if a failing test leaves one behind. */
export const started: Worker[] = [];

/** Starts `script` (a path from the repository root) as a replica; `env` holds every polbot setting it gets. */
export function startWorker(script: string, name: string, env: Record<string, string>): Worker {
  // None of polbot's settings in this process's environment reaches the replica (the test server's
  // DATABASE_URL above all): it is configured by `env` alone.
  const polbotSetting =
    /^(POL_|POLBOT_|SLACK_|DISCORD_|RATE_LIMIT_|DATABASE_URL$|PORT$|HOST$|CHART_RENDERER$|QUICKCHART_URL$|LOG_LEVEL$|DIGEST_ADMINS$|PAGERDUTY_EVENTS_URL$|TELEGRAM_)/;
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !polbotSetting.test(k)));
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: ROOT,
    env: { ...inherited, LOG_LEVEL: 'warn', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  secretWatch.output(`${name} ${child.pid} stdout`, child.stdout);
  secretWatch.output(`${name} ${child.pid} stderr`, child.stderr);
  const lines: string[] = [];
  const logs: string[] = [];
  const listeners = new Set<() => void>();
  const collect = (stream: NodeJS.ReadableStream, into: string[]) => {
    let buffered = '';
    stream.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      into.push(...parts);
      for (const l of listeners) l();
    });
  };
  collect(child.stdout!, lines);
  collect(child.stderr!, logs);
  const stderr = () => logs.slice(-20).join('\n');
  let ended = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) => {
    child.on('exit', (code, signal) => {
      if (code !== 0 && signal === null) lines.push(`stderr ${stderr()}`);
      ended = true;
      for (const l of listeners) l();
      resolveExit({ code, signal });
    });
  });
  const line = (match: (l: string) => boolean, timeoutMs: number, from: 'stdout' | 'log' = 'stdout') =>
    new Promise<string>((resolveLine, reject) => {
      const timer = setTimeout(() => done(new Error(`no such line within ${timeoutMs} ms:\n${lines.join('\n')}\n${stderr()}`)), timeoutMs);
      const check = () => {
        const found = (from === 'stdout' ? lines : logs).find(match);
        if (found !== undefined) done(undefined, found);
        else if (ended) done(new Error(`worker exited first:\n${lines.join('\n')}\n${stderr()}`));
      };
      const done = (err?: Error, found?: string) => {
        clearTimeout(timer);
        listeners.delete(check);
        if (err) reject(err);
        else resolveLine(found!);
      };
      listeners.add(check);
      check();
    });
  const worker: Worker = { child, lines, logs, exited, line, go: () => child.stdin!.write('go\n') };
  started.push(worker);
  return worker;
}

/** Ends the replicas a failing test left running, each by its own pid. */
export function killLeftovers(): void {
  for (const w of started.splice(0)) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
}

/** The reports a worker printed after its ticks (`tick {...}`), in order. */
export const ticks = <T>(w: Worker): T[] =>
  w.lines.filter((l) => l.startsWith('tick ')).map((l) => JSON.parse(l.slice('tick '.length)) as T);

/** Resolves when `check` holds, polling; fails after `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A database the replicas share: a PostgreSQL database of its own, or a PGlite data directory,
 * which the processes take turns on (PGlite is one process's database).
 */
export async function replicaDatabase(
  engine: EngineName,
  prefix: string,
): Promise<{ env: Record<string, string>; open(): Promise<Db>; cleanup(): Promise<void> }> {
  if (engine === 'postgres') {
    const pg = await createPostgresDatabase();
    return { env: { DATABASE_URL: pg.url }, open: () => openPostgres(pg.url, 2), cleanup: pg.drop };
  }
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { env: { POLBOT_DATA_DIR: dir }, open: () => openPglite(dir), cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * The settings a replica gets to reach the fake Slack and Discord (through `origins`, a hold proxy
 * in front of each) from loopback, as `polbot start` reads them.
 */
export function platformEnv(o: {
  slack: { botToken: string };
  discord: { token: string; applicationId: string };
  origins: { slack: string; discord: string };
  guildId: string;
  signingSecret: string;
}): Record<string, string> {
  return {
    HOST: '127.0.0.1',
    PORT: '0',
    POL_TIMEOUT_MS: '3000',
    RATE_LIMIT_PER_USER: '0',
    SLACK_BOT_TOKEN: o.slack.botToken,
    SLACK_SIGNING_SECRET: o.signingSecret,
    SLACK_API_URL: `${o.origins.slack}/api/`,
    DISCORD_TOKEN: o.discord.token,
    DISCORD_APPLICATION_ID: o.discord.applicationId,
    DISCORD_GUILD_ID: o.guildId,
    DISCORD_API_URL: `${o.origins.discord}/api`,
  };
}

/**
 * The lease of an alert replica's every claim: short, so that a takeover comes within seconds. The
 * holder renews every third of one (1.3 s), so a busy machine has most of a lease to spare before
 * a living holder would lose its claims.
 */
export const ALERT_REPLICA_LEASE_MS = 4_000;
const ALERT_REPLICA_TICK_MS = 200;

/**
 * The settings of an alert replica (test/e2e/alerts/worker-script.ts): the shared database, the
 * fake Slack and Discord reached through its own hold proxies (`through`), the lease above and a
 * tick every 200 ms. Its log is at info, where the alert service says what it recorded and how.
 */
export function alertWorkerEnv(o: {
  database: Record<string, string>;
  slack: { botToken: string };
  discord: { token: string; applicationId: string };
  through: { slack: { origin: string }; discord: { origin: string } };
  guildId: string;
}): Record<string, string> {
  return {
    ...o.database,
    LOG_LEVEL: 'info',
    ...platformEnv({
      slack: o.slack,
      discord: o.discord,
      origins: { slack: o.through.slack.origin, discord: o.through.discord.origin },
      guildId: o.guildId,
      // The Slack adapter runs in HTTP mode, which needs one; one of the suite's fixed secrets (secret-watch.ts).
      signingSecret: 'digest-adapter-test-secret',
    }),
    ALERT_WORKER_LEASE: String(ALERT_REPLICA_LEASE_MS),
    ALERT_WORKER_TICK: String(ALERT_REPLICA_TICK_MS),
  };
}

/** What Slack answers anyone reading the workspace with the bot's token (`conversations.history`, `.replies`): its messages. */
export async function slackReads(
  slack: { url: string; botToken: string },
  method: string,
  args: Record<string, string>,
): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${slack.url}${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${slack.botToken}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(args).toString(),
  });
  const body = (await res.json()) as { ok: boolean; messages?: Record<string, unknown>[] };
  if (!body.ok) throw new Error(`${method}: ${JSON.stringify(body)}`);
  return body.messages ?? [];
}
