import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { secretWatch } from '../../helpers/secret-watch.js';

const execFileAsync = promisify(execFile);

/** Runs the CLI and hands what it printed, success or failure, to the suite's secret check. */
async function run(...args: Parameters<typeof execFileAsync>): Promise<{ stdout: string; stderr: string }> {
  const where = `\`${[args[0], ...(args[1] ?? [])].join(' ')}\``;
  try {
    const result = await execFileAsync(...args);
    secretWatch.outputText(`${where} stdout`, result.stdout);
    secretWatch.outputText(`${where} stderr`, result.stderr);
    return { stdout: String(result.stdout), stderr: String(result.stderr) };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    secretWatch.outputText(`${where} stdout`, failed.stdout);
    secretWatch.outputText(`${where} stderr`, failed.stderr);
    throw error;
  }
}
const BIN = join(import.meta.dirname, '../../../bin/polbot.js');
/** A clean environment: demo mode, no adapters, whatever the developer's shell has set. */
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1' };

describe('polbot CLI, end to end as a child process', () => {
  it('answers `ask` with a rendered card and writes the chart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'polbot-ask-'));
    const out = join(dir, 'binance.png');
    const { stdout } = await run('node', [BIN, 'ask', 'binance', '--chart-out', out], { env: ENV, timeout: 60_000 });
    expect(stdout).toContain('Binance');
    expect(stdout).toContain('Probability of Loss:');
    expect(stdout).toContain('(lower is safer)');
    expect(stdout).toContain('(higher is better)');
    expect(stdout).toContain('SIMULATED DATA');
    expect(stdout).toContain(`chart: ${out}`);
    const png = await readFile(out);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
  });

  it('answers `ask exposure binance` as a first look, saying its readings last only while it runs', async () => {
    const { stdout } = await run('node', [BIN, 'ask', 'exposure binance'], { env: ENV, timeout: 60_000 });
    expect(stdout).toContain('Exposure: Binance');
    expect(stdout).toContain(
      "First look: polbot has no earlier reading of Binance's listed assets, so there is nothing to compare with yet.",
    );
    expect(stdout).toContain('Here readings last only while this polbot runs: it keeps no database.');
    // Binance's riskiest listed asset in the simulator's dataset.
    expect(stdout).toContain('Terra Classic (LUNC): 96.1%');
    expect(stdout).toContain('SIMULATED DATA');
  });

  it('prints the Reply as JSON with --json', async () => {
    const { stdout } = await run('node', [BIN, 'ask', '--json', 'shiba'], { env: ENV, timeout: 60_000 });
    const reply = JSON.parse(stdout);
    expect(reply.kind).toBe('choice');
    expect(reply.options.map((o: { command: string }) => o.command).sort()).toEqual(['project:shiba-inu', 'project:shibaswap']);
  });

  it('exits 1 on an error reply and with one clear line on bad configuration', async () => {
    const bad = await run('node', [BIN, 'ask', 'chart'], { env: ENV, timeout: 60_000 }).then(
      () => ({ code: 0, stdout: '' }),
      (e: { code: number; stdout: string }) => e,
    );
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/For example: polbot ask "chart bitcoin 365d categories"/);
    const config = await run('node', [BIN, 'ask', 'binance'], { env: { ...ENV, POL_SOURCE: 'graphql' }, timeout: 60_000 }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(config.code).toBe(1);
    expect(config.stderr.trim()).toBe('polbot: configuration error: POL_SOURCE: must be one of rest, mcp');
  });

  it('runs the console on piped input, answering a numbered choice', async () => {
    const child = spawn('node', [BIN, 'start'], { env: ENV, stdio: ['pipe', 'pipe', 'pipe'] });
    secretWatch.output('`polbot start` (console) stdout', child.stdout);
    secretWatch.output('`polbot start` (console) stderr', child.stderr);
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stdin.write('shiba\n');
    await waitFor(() => stdout.includes('Answer with a number'));
    child.stdin.write('2\n');
    await waitFor(() => stdout.includes('ShibaSwap (BONE)') && stdout.includes('Probability of Loss'));
    child.stdin.end('exit\n');
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    expect(stdout).toContain('DEMO MODE');
    expect(stdout).toContain('SIMULATED');
    expect(stdout).toMatch(/1\. Shiba Inu/);
  });

  it('says at start-up, in plain words, what is wrong with the configured upstream', async () => {
    // A port that was just free: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = s.address() as AddressInfo;
        s.close(() => resolve(p));
      });
    });
    const child = spawn('node', [BIN, 'start'], {
      env: { ...ENV, POL_API_BASE_URL: `http://127.0.0.1:${port}`, POL_API_KEY: 'svc_cli_test_key_0001' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    secretWatch.output('`polbot start` (console, no upstream) stderr', child.stderr);
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    await waitFor(() => stderr.includes('/pol health shows the current state.'));
    child.stdin.end('exit\n');
    expect(await new Promise<number | null>((resolve) => child.on('exit', resolve))).toBe(0);
    expect(stderr).toContain('polbot: REST gateway: the connection was refused: nothing listens there; check POL_API_BASE_URL\n');
    expect(stderr).not.toMatch(/"level"|at .*\.ts:\d+/);
  });
});

async function waitFor(cond: () => boolean, timeoutMs = 30_000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error('timed out waiting for console output');
    await new Promise((r) => setTimeout(r, 50));
  }
}
