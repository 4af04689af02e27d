#!/usr/bin/env node
/**
 * Compiles the TypeScript sources to plain JavaScript under `dist/` (or `--outdir DIR`), keeping
 * the repository's layout, so that production runs `node dist/bin/polbot.js` without a loader.
 * The TypeScript loader that `bin/polbot.js` uses in development costs about 30 MB of resident
 * memory for its own thread, and start-up time; a deployed bot should not pay either.
 *
 * Types are checked by `npm run typecheck` (tsc); this only strips them, file by file, with
 * esbuild: no bundling, so module boundaries, `import.meta.url` paths and stack traces stay as
 * in the sources.
 */
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** What runs in production; `bench` is compiled too, so the benchmark can measure the same code. */
const SOURCE_DIRS = ['src', 'adapters', 'commands', 'app', 'bench'];

function tsFiles(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...tsFiles(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

export async function buildProject(outdir = join(ROOT, 'dist')) {
  rmSync(outdir, { recursive: true, force: true });
  const entryPoints = SOURCE_DIRS.flatMap((d) => tsFiles(join(ROOT, d)));
  await build({
    entryPoints,
    outdir,
    outbase: ROOT,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  // The chart font is read from `../../assets` relative to the compiled chart module.
  cpSync(join(ROOT, 'assets'), join(outdir, 'assets'), { recursive: true });
  mkdirSync(join(outdir, 'bin'), { recursive: true });
  writeFileSync(
    join(outdir, 'bin', 'polbot.js'),
    "#!/usr/bin/env node\n// Built by scripts/build.mjs: the compiled command line, without a TypeScript loader.\nawait import('../app/cli/main.js');\n",
    { mode: 0o755 },
  );
  // Marks the tree as an ES module tree wherever it is copied, as the package.json does here.
  writeFileSync(join(outdir, 'package.json'), `${JSON.stringify({ type: 'module', private: true }, null, 2)}\n`);
  return { outdir, files: entryPoints.length };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--outdir');
  const outdir = i === -1 ? undefined : resolve(process.argv[i + 1] ?? '');
  const { outdir: out, files } = await buildProject(outdir);
  console.log(`built ${files} files into ${relative(process.cwd(), out) || '.'}`);
}
