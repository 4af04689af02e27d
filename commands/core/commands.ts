import { readdirSync } from 'node:fs';
import { extname } from 'node:path';
import type { CommandSpec } from '../kit/spec.js';

/**
 * Every command: each module directly in `commands/` is one, found here, so adding a command is
 * adding its file. Loaded once at start-up (a top-level await), in the order help lists them.
 * Found by listing the folder rather than by a hand-kept list, which would be a second place to
 * change; the same code runs from the TypeScript sources and from the compiled build.
 */
async function loadCommands(): Promise<readonly CommandSpec[]> {
  const dir = new URL('../', import.meta.url);
  const ext = extname(new URL(import.meta.url).pathname);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(ext) && !f.endsWith(`.d${ext}`))
    .sort();
  const specs = await Promise.all(
    files.map(async (f) => {
      const module = (await import(new URL(f, dir).href)) as { default?: CommandSpec };
      if (!module.default?.name || typeof module.default.handler !== 'function') throw new Error(`commands/${f} does not export a command`);
      return module.default;
    }),
  );
  return specs.sort((a, b) => a.order - b.order || a.name.localeCompare(b.name));
}

export const COMMANDS: readonly CommandSpec[] = await loadCommands();
