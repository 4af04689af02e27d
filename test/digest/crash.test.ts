import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryKey } from '../../src/digest/content.js';
import { openPglite, openPostgres, type Db } from '../../src/digest/db.js';
import { migrate } from '../../src/digest/migrations.js';
import { buildSchedule } from '../../src/digest/schedule.js';
import { DigestStore } from '../../src/digest/store.js';
import { startFakeSlack, type FakeSlack } from '../fakes/slack/index.js';
import { secretWatch } from '../helpers/secret-watch.js';
import { startSlackProxy, type SlackProxy } from './slack-proxy.js';
import { createPostgresDatabase, ENGINES, type EngineName } from './helpers.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SLOT = Date.parse('2026-11-20T09:00:00Z');
const LEASE = 60_000;

interface Worker {
  child: ChildProcess;
  lines: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A replica in its own process, started by this test and only ever signalled by its own pid. */
function startWorker(env: Record<string, string>): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/digest/worker-script.ts'], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  secretWatch.output(`digest worker ${child.pid} stdout`, child.stdout);
  secretWatch.output(`digest worker ${child.pid} stderr`, child.stderr);
  const lines: string[] = [];
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    lines.push(...parts);
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) => {
    child.on('exit', (code, signal) => {
      if (code !== 0 && signal === null) lines.push(`stderr ${stderr}`);
      resolveExit({ code, signal });
    });
  });
  return { child, lines, exited };
}

describe.each(ENGINES)('a replica killed with SIGKILL in the middle of delivery, on %s', (engine: EngineName) => {
  let slack: FakeSlack;
  let proxy: SlackProxy;
  let dbSpec: string;
  let cleanup: () => Promise<void>;
  let open: () => Promise<Db>;
  const ids = { reached: 0, inFlight: 0 };

  beforeAll(async () => {
    slack = await startFakeSlack();
    proxy = await startSlackProxy(slack);
    if (engine === 'postgres') {
      const pg = await createPostgresDatabase();
      dbSpec = pg.url;
      open = () => openPostgres(pg.url, 2);
      cleanup = pg.drop;
    } else {
      // PGlite is one process's database: the processes take turns on the same data directory.
      const dir = await mkdtemp(join(tmpdir(), 'polbot-crash-'));
      dbSpec = `pglite:${dir}`;
      open = () => openPglite(dir);
      cleanup = () => rm(dir, { recursive: true, force: true });
    }
    const db = await open();
    await migrate(db);
    const store = new DigestStore(db);
    const schedule = buildSchedule({ kind: 'daily', time: '09:00' });
    if (!schedule.ok) throw new Error(schedule.message);
    const entities = [{ kind: 'project' as const, slug: 'bitcoin', name: 'Bitcoin', ticker: 'BTC' }];
    for (const [key, channelId] of [['reached', 'C-KILL-REACHED'], ['inFlight', 'C-KILL-IN-FLIGHT']] as const) {
      const r = await store.create({ platform: 'slack', channelId, entities, schedule: schedule.value, createdBy: 'U1' }, SLOT - 3_600_000, 10);
      if (!r.ok) throw new Error('create failed');
      ids[key] = r.digest.id;
    }
    await db.close();
  });

  afterAll(async () => {
    await proxy.close();
    await slack.close();
    await cleanup();
  });

  const posts = (channel: string) => slack.calls('chat.postMessage').filter((c) => c.args.channel === channel);
  const workerEnv = (now: number) => ({
    DIGEST_WORKER_DB: dbSpec,
    DIGEST_WORKER_SLACK: proxy.url,
    DIGEST_WORKER_TOKEN: slack.botToken,
    DIGEST_WORKER_NOW: String(now),
    DIGEST_WORKER_LEASE: String(LEASE),
  });

  it('neither duplicates nor loses the slot after a restart', async () => {
    // One post reaches Slack but its answer never returns; the other never leaves the proxy.
    proxy.hold.set('C-KILL-REACHED', 'response');
    proxy.hold.set('C-KILL-IN-FLIGHT', 'request');
    const first = startWorker(workerEnv(SLOT));
    await Promise.race([
      Promise.all([slack.waitFor('chat.postMessage', (c) => c.args.channel === 'C-KILL-REACHED', 30_000), proxy.arrived('C-KILL-IN-FLIGHT')]),
      first.exited.then((e) => Promise.reject(new Error(`worker exited early (${JSON.stringify(e)}): ${first.lines.join('\n')}`))),
    ]);
    expect(first.child.kill('SIGKILL')).toBe(true);
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(first.lines).toEqual(['ready']);

    // What the dead replica left: both runs claimed, content stored, nothing recorded as sent.
    let db = await open();
    let store = new DigestStore(db);
    for (const id of [ids.reached, ids.inFlight]) {
      expect(await store.run(id, SLOT)).toMatchObject({ status: 'claimed', partsSent: 0, attempts: 1, claimedBy: expect.stringMatching(/^worker-\d+$/) });
    }
    await db.close();
    expect(posts('C-KILL-REACHED')).toHaveLength(1);
    expect(posts('C-KILL-IN-FLIGHT')).toHaveLength(0);

    // A new replica after the lease: Slack already has one digest, the other is sent now.
    proxy.hold.clear();
    const second = startWorker(workerEnv(SLOT + LEASE + 1_000));
    const exit = await second.exited;
    expect(exit, second.lines.join('\n')).toEqual({ code: 0, signal: null });
    const report = JSON.parse(second.lines.find((l) => l.startsWith('report '))!.slice('report '.length)) as Record<string, number>;
    expect(report).toMatchObject({ claimed: 2, confirmed: 1, delivered: 1, lost: 0 });

    expect(posts('C-KILL-REACHED')).toHaveLength(1);
    expect(posts('C-KILL-IN-FLIGHT')).toHaveLength(1);
    expect(String(posts('C-KILL-REACHED')[0]!.args.text)).toContain(deliveryKey({ id: ids.reached, timezone: 'UTC' }, SLOT));
    expect(String(posts('C-KILL-IN-FLIGHT')[0]!.args.text)).toContain(deliveryKey({ id: ids.inFlight, timezone: 'UTC' }, SLOT));
    db = await open();
    store = new DigestStore(db);
    for (const id of [ids.reached, ids.inFlight]) {
      expect(await store.run(id, SLOT)).toMatchObject({ status: 'delivered', attempts: 2 });
      expect(await store.get(id)).toMatchObject({ lastSlot: SLOT, state: 'active' });
    }
    await db.close();
  }, 90_000);
});
