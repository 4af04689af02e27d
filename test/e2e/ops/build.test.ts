import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { LogLevel } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimStore } from '../../../src/sim/data/store.js';
import { DEFAULT_SEED } from '../../../src/sim/server.js';
import { polText } from '../../helpers/truth.js';
import { createLogger } from '../../../src/log.js';
import { postToBolt, slashCommandBody } from '../../fakes/slack/index.js';
import { secretWatch } from '../../helpers/secret-watch.js';

const SECRET = 'compiled-ingress-test-secret-91c2';

const execFileAsync = promisify(execFile);
const ROOT = join(import.meta.dirname, '../../..');
/** A clean environment: demo mode, no adapters, whatever the developer's shell has set. */
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1' };

async function node(args: string[]): Promise<string> {
  const where = `\`node ${args.join(' ')}\``;
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, args, { cwd: ROOT, env: ENV, timeout: 60_000 });
    secretWatch.outputText(`${where} stdout`, stdout);
    secretWatch.outputText(`${where} stderr`, stderr);
    return stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    secretWatch.outputText(`${where} stdout`, failed.stdout);
    secretWatch.outputText(`${where} stderr`, failed.stderr);
    throw error;
  }
}

// The production image runs this tree (see the Dockerfile): what it ships must work on its own.
describe('the compiled build', () => {
  let scratch: string;
  let out: string;
  beforeAll(async () => {
    // Inside the repository, as dist/ is, so that the compiled modules find node_modules.
    await mkdir(join(ROOT, '.tmp'), { recursive: true });
    scratch = await mkdtemp(join(ROOT, '.tmp', 'build-test-'));
    out = join(scratch, 'dist');
    await node(['scripts/build.mjs', '--outdir', out]);
  }, 60_000);
  afterAll(() => rm(scratch, { recursive: true, force: true }));

  it('holds the entry point, the chart font and no TypeScript', async () => {
    expect(existsSync(join(out, 'bin', 'polbot.js'))).toBe(true);
    expect(existsSync(join(out, 'app', 'cli', 'main.js'))).toBe(true);
    expect(existsSync(join(out, 'app', 'cli', 'main.ts'))).toBe(false);
    expect(existsSync(join(out, 'assets', 'fonts'))).toBe(true);
    // The shard manager starts shards from bin/polbot.js next to the compiled adapters.
    expect(existsSync(join(out, 'adapters', 'discord', 'shard.js'))).toBe(true);
    // The Slack receiver starts its thread from the compiled module next to it.
    expect(existsSync(join(out, 'adapters', 'slack', 'ingress', 'thread.js'))).toBe(true);
  });

  it('acknowledges a signed slash command on the compiled Slack ingress thread, without the loader', async () => {
    const compiled = (await import(
      pathToFileURL(join(out, 'adapters', 'slack', 'ingress', 'receiver.js')).href
    )) as typeof import('../../../adapters/slack/ingress/receiver.js');
    const logs: string[] = [];
    const boltLog = {
      debug: () => undefined,
      info: () => undefined,
      warn: (...m: unknown[]) => logs.push(m.join(' ')),
      error: (...m: unknown[]) => logs.push(m.join(' ')),
      setLevel: () => undefined,
      getLevel: () => LogLevel.INFO,
      setName: () => undefined,
    };
    const received: unknown[] = [];
    const receiver = new compiled.IngressReceiver({
      signingSecret: SECRET,
      endpoint: '/slack/events',
      logger: boltLog,
      logLevel: LogLevel.INFO,
      log: createLogger({ level: 'silent' }),
    });
    receiver.init({ processEvent: async (event: { body: unknown }) => void received.push(event.body) } as never);
    try {
      const { port } = await receiver.start(0, '127.0.0.1');
      const r = await postToBolt(
        `http://127.0.0.1:${port}/slack/events`,
        slashCommandBody({ command: '/pol', text: 'bitcoin', response_url: 'http://127.0.0.1:9/r' }),
        SECRET,
      );
      expect(r.status).toBe(200);
      for (let i = 0; i < 100 && !received.length; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(received).toMatchObject([{ command: '/pol', text: 'bitcoin' }]);
      expect(logs).toEqual([]);
    } finally {
      await receiver.stop();
    }
  });

  it('answers a command without the TypeScript loader, with the simulator numbers and a drawn chart', async () => {
    const png = join(scratch, 'bitcoin.png');
    // Plain node, no loader: a module still pointing at TypeScript would fail to load.
    const json = JSON.parse(await node([join(out, 'bin', 'polbot.js'), 'ask', '--json', 'bitcoin', '--chart-out', png])) as {
      kind: string;
      headline?: { value?: string };
    };
    const store = new SimStore({ seed: DEFAULT_SEED });
    expect(json.kind).toBe('card');
    expect(json.headline?.value).toBe(polText(store.project('bitcoin')!.pol.at(-1)!));
    const bytes = await readFile(png);
    expect(bytes.subarray(1, 4).toString()).toBe('PNG');
    expect(bytes.length).toBeGreaterThan(10_000);
  });
});
