import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

const run = promisify(execFile);

/**
 * The digest store is tested against a real PostgreSQL. With DATABASE_URL set, that server is used;
 * otherwise a throwaway server is started from the machine's PostgreSQL binaries for this run and
 * stopped afterwards. No binaries and no DATABASE_URL is a failure, never a skip.
 */
function findBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.DATABASE_URL) {
    project.provide('databaseUrl', process.env.DATABASE_URL);
    return async () => undefined;
  }
  const bin = findBinDir();
  if (!bin) {
    throw new Error(
      'PostgreSQL binaries not found under /usr/lib/postgresql and DATABASE_URL is not set: install the postgresql package (.ci/run does) or point DATABASE_URL at a server.',
    );
  }
  const dir = await mkdtemp(join(tmpdir(), 'polbot-pg-'));
  const data = join(dir, 'data');
  // initdb refuses to run as root; the postgres system user owns the throwaway cluster instead.
  const asRoot = process.getuid?.() === 0;
  const exec = (cmd: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]) : run(join(bin, cmd), args);
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const port = await freePort();
  await exec('initdb', ['-D', data, '-A', 'trust', '-U', 'polbot', '--no-sync', '-E', 'UTF8']);
  await exec('pg_ctl', [
    '-D',
    data,
    '-l',
    join(dir, 'log'),
    '-w',
    '-t',
    '60',
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
    'start',
  ]);
  const url = `postgres://polbot@127.0.0.1:${port}/postgres`;
  process.env.DATABASE_URL = url;
  project.provide('databaseUrl', url);
  return async () => {
    await exec('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}
