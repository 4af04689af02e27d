import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { secretWatch } from '../../helpers/secret-watch.js';

/**
 * A slim container has no fonts at all. Hiding the system font directories in a private mount
 * namespace reproduces that here. It needs `unshare -m` (root, as in CI); without it the test fails
 * rather than silently proving nothing.
 */
const FONT_DIRS = [
  '/usr/share/fonts',
  '/usr/local/share/fonts',
  `${process.env.HOME ?? '/root'}/.fonts`,
  `${process.env.HOME ?? '/root'}/.local/share/fonts`,
].filter((d) => existsSync(d));
const canIsolate = process.platform === 'linux' && spawnSync('unshare', ['-m', 'true']).status === 0;

describe('charts without system fonts', () => {
  it('still draw their text with the shipped font', () => {
    expect(canIsolate, 'unshare -m is needed to hide the system fonts').toBe(true);
    const child = fileURLToPath(new URL('./no-system-fonts.child.ts', import.meta.url));
    const mounts = FONT_DIRS.map((d) => `mount -t tmpfs none '${d}'`).join(' && ');
    const script = `${mounts ? `${mounts} && ` : ''}exec "${process.execPath}" --import tsx "${child}"`;
    const run = spawnSync('unshare', ['-m', 'sh', '-c', script], {
      encoding: 'utf8',
      cwd: fileURLToPath(new URL('../../..', import.meta.url)),
      timeout: 60_000,
    });
    secretWatch.outputText('chart child stdout', run.stdout);
    secretWatch.outputText('chart child stderr', run.stderr);
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { systemFamilies: number; families: string[]; titleDiff: number; tickInk: number };
    expect(result.systemFamilies).toBe(0);
    expect(result.families).toEqual(['Inter']);
    expect(result.titleDiff).toBeGreaterThan(2000);
    expect(result.tickInk).toBeGreaterThan(500);
  });
});
