import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { parse } from 'yaml';
import { secretWatch } from './secret-watch.js';

/**
 * What `docker compose up` would run, run on loopback without Docker: the compose file read and
 * interpolated as Compose does, PostgreSQL from the machine's binaries, polbot processes, and nginx
 * with the committed configuration. Everything started here is stopped by its own pid.
 */

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');

export interface ComposeService {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  environment?: Record<string, string | number | boolean | null>;
  healthcheck?: { test: string | string[] };
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, { condition?: string }>;
  deploy?: unknown;
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

/**
 * `${NAME}`, `${NAME:-default}`, `${NAME-default}`, `${NAME:?error}`, `${NAME?error}`,
 * `${NAME:+alternative}`, `$NAME` and `$$`, as Compose reads them; anything else is refused rather
 * than passed on as written.
 */
export function interpolate(text: string, vars: Readonly<Record<string, string | undefined>>): string {
  return text.replace(/\$\$|\$\{([^}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (whole, braced: string | undefined, bare: string | undefined) => {
    if (whole === '$$') return '$';
    if (bare !== undefined) return vars[bare] ?? '';
    const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])(.*))?$/s.exec(braced ?? '');
    if (!m) throw new Error(`compose: cannot read \${${braced}}`);
    const [, name, op, arg = ''] = m as unknown as [string, string, string | undefined, string | undefined];
    if (arg.includes('$')) throw new Error(`compose: nested interpolation in \${${braced}} is not read here`);
    const value = vars[name];
    const set = op?.startsWith(':') ? value !== undefined && value !== '' : value !== undefined;
    switch (op?.replace(':', '')) {
      case undefined:
        return value ?? '';
      case '-':
        return set ? value! : arg;
      case '?':
        if (!set) throw new Error(`compose: ${name}: ${arg}`);
        return value!;
      case '+':
        return set ? arg : '';
      default:
        throw new Error(`compose: cannot read \${${braced}}`);
    }
  });
}

function interpolateAll(value: unknown, vars: Readonly<Record<string, string | undefined>>): unknown {
  if (typeof value === 'string') return interpolate(value, vars);
  if (Array.isArray(value)) return value.map((v) => interpolateAll(v, vars));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateAll(v, vars)]));
  return value;
}

/** The compose file with its anchors merged and `vars` (a .env file's settings) interpolated. */
export function readCompose(path: string, vars: Readonly<Record<string, string | undefined>>): ComposeFile {
  const parsed = parse(readFileSync(path, 'utf8'), { merge: true }) as ComposeFile;
  return interpolateAll(parsed, vars) as ComposeFile;
}

/** A service's environment as the container sees it (Compose sets `null` values as empty). */
export function environmentOf(service: ComposeService): Record<string, string> {
  if (service.environment !== undefined && (typeof service.environment !== 'object' || Array.isArray(service.environment))) {
    throw new Error('compose: only the map form of `environment` is read here');
  }
  return Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

/** A healthcheck's `test` as a command line to run: CMD runs as given, CMD-SHELL and a string through sh. */
export function healthcheckCommand(service: ComposeService): string[] {
  const t = service.healthcheck?.test;
  if (t === undefined) throw new Error('compose: the service has no healthcheck');
  if (typeof t === 'string') return ['sh', '-c', t];
  if (t[0] === 'CMD') return t.slice(1);
  if (t[0] === 'CMD-SHELL') return ['sh', '-c', t.slice(1).join(' ')];
  throw new Error(`compose: healthcheck test ${JSON.stringify(t)} cannot be run`);
}

/** Runs a healthcheck command on this machine; resolves with its exit code. */
export async function runHealthcheck(argv: string[], env: Record<string, string>, timeoutMs: number): Promise<number> {
  try {
    await run(argv[0]!, argv.slice(1), { env, timeout: timeoutMs });
    return 0;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'number' ? code : -1;
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolvePort(port));
    });
  });
}

/** Resolves once something accepts connections on the port; fails after `timeoutMs`. */
export async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((done) => {
      const socket = createConnection({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        done(true);
      });
      socket.once('error', () => done(false));
    });
    if (open) return;
    if (Date.now() > end) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error('PostgreSQL binaries not found under /usr/lib/postgresql: install the postgresql package (.ci/run does)');
  return join(root, newest, 'bin');
}

export interface LocalPostgres {
  port: number;
  /** The directory of pg_isready and the other client programs, for a healthcheck's PATH. */
  binDir: string;
  stop(): Promise<void>;
}

/**
 * A PostgreSQL server of its own, set up as the postgres image sets one up from POSTGRES_USER,
 * POSTGRES_PASSWORD and POSTGRES_DB: the password required over TCP, the database created.
 */
export async function startPostgres(o: { user: string; password: string; db: string }): Promise<LocalPostgres> {
  const binDir = postgresBinDir();
  const dir = await mkdtemp(join(tmpdir(), 'polbot-compose-pg-'));
  const data = join(dir, 'data');
  // initdb refuses to run as root; the postgres system user owns the cluster instead.
  const asRoot = process.getuid?.() === 0;
  const exec = (cmd: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(binDir, cmd), ...args]) : run(join(binDir, cmd), args);
  const pwfile = join(dir, 'pw');
  await writeFile(pwfile, `${o.password}\n`, { mode: 0o600 });
  if (asRoot) {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    await chown(dir, uid, gid);
    await chown(pwfile, uid, gid);
  }
  const port = await freePort();
  await exec('initdb', [
    '-D',
    data,
    '-U',
    o.user,
    `--pwfile=${pwfile}`,
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '--no-sync',
    '-E',
    'UTF8',
  ]);
  await rm(pwfile);
  await exec('pg_ctl', [
    '-D',
    data,
    '-l',
    join(dir, 'log'),
    '-w',
    '-t',
    '30',
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
    'start',
  ]);
  const stop = async () => {
    await exec('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const admin = new pg.Client({ host: '127.0.0.1', port, user: o.user, password: o.password, database: 'postgres' });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${o.db.replace(/"/g, '""')}"`);
    await admin.end();
  } catch (err) {
    await stop();
    throw err;
  }
  return { port, binDir, stop };
}

/** The nginx binary, or a failure saying how to get it: the compose test never runs without it. */
export function nginxBinary(): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/sbin'];
  const found = dirs.map((d) => join(d, 'nginx')).find((p) => existsSync(p));
  if (!found)
    throw new Error(
      'nginx is not installed: the compose test runs deploy/nginx.conf in front of the replicas. Install it with `apt-get install -y nginx-light` (.ci/run does).',
    );
  return found;
}

export interface LocalNginx {
  child: ChildProcess;
  /** Each proxied request as `METHOD URI STATUS UPSTREAM_ADDR`. */
  accessLog(): string;
  stop(): Promise<void>;
}

/**
 * nginx in the foreground with `serverConf` (what the image's conf.d holds) inside an `http`
 * block of its own, with every path it writes in a temporary directory.
 */
export async function startNginx(serverConf: string, port: number): Promise<LocalNginx> {
  const bin = nginxBinary();
  const dir = await mkdtemp(join(tmpdir(), 'polbot-compose-nginx-'));
  // Its workers run as an unprivileged user when started as root, and need to reach the temp paths.
  await chmod(dir, 0o755);
  await writeFile(join(dir, 'default.conf'), serverConf);
  const main = `
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  log_format upstreams '$request_method $request_uri $status $upstream_addr';
  access_log ${dir}/access.log upstreams;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  include ${dir}/default.conf;
}
`;
  await writeFile(join(dir, 'nginx.conf'), main);
  const args = ['-p', dir, '-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf')];
  const checked = await run(bin, [...args, '-t']).catch((err: { stderr?: string }) => ({
    stderr: err.stderr ?? String(err),
    failed: true,
  }));
  if ('failed' in checked) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`nginx refused the configuration:\n${checked.stderr}`);
  }
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  await Promise.race([
    waitForPort(port, 10_000),
    exited.then(() => {
      throw new Error(`nginx exited at start:\n${output}\n${readLog(join(dir, 'error.log'))}`);
    }),
  ]);
  return {
    child,
    accessLog: () => readLog(join(dir, 'access.log')),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function readLog(path: string): string {
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}

export interface Replica {
  name: string;
  child: ChildProcess;
  /** Its output (pino JSON lines), stdout and stderr together. */
  output(): string;
  /** The port it reported in its `polbot started` line. */
  port: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

/**
 * `polbot start` (the image's command, from the sources rather than the compiled `dist/`) with
 * `env` as its whole polbot environment, as a container gets it; resolves once it says it started.
 */
export async function startReplica(name: string, env: Record<string, string>, timeoutMs: number): Promise<Replica> {
  const dataDir = await mkdtemp(join(tmpdir(), `polbot-compose-${name}-`));
  const child = spawn(process.execPath, [join(ROOT, 'bin/polbot.js'), 'start'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dataDir, POLBOT_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  secretWatch.output(`${name} ${child.pid} stdout`, child.stdout);
  secretWatch.output(`${name} ${child.pid} stderr`, child.stderr);
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => r({ code, signal })),
  );
  const started = new Promise<number>((resolveStarted, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within ${timeoutMs} ms:\n${output.slice(-3_000)}`)), timeoutMs);
    let seen = false;
    const onData = (d: Buffer) => {
      output += d.toString();
      const line = seen ? undefined : output.split('\n').find((l) => l.includes('"msg":"polbot started') && l.endsWith('}'));
      if (line === undefined) return;
      seen = true;
      clearTimeout(timer);
      resolveStarted(Number((JSON.parse(line) as { port: number }).port));
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((e) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited at start (${JSON.stringify(e)}):\n${output.slice(-3_000)}`));
    });
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const bounded = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(bounded);
    }
    await rm(dataDir, { recursive: true, force: true });
  };
  let port: number;
  try {
    port = await started;
  } catch (err) {
    await stop();
    throw err;
  }
  return { name, child, output: () => output, port, exited, stop };
}
