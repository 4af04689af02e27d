import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('../profiles/', import.meta.url));
let session: Session | undefined;

/**
 * With `--cpu-prof`, each measured phase writes its own V8 CPU profile to bench/profiles/, so a
 * profile shows one phase rather than the whole run (summarise with bench/profile.ts, or open in
 * Chrome DevTools or speedscope for a flame graph). Without it, `fn` just runs.
 */
export async function profiled<T>(name: string, fn: () => Promise<T>): Promise<T> {
  if (!process.env.POLBOT_BENCH_PROFILE) return fn();
  if (!session) {
    session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
  }
  await session.post('Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(DIR, { recursive: true });
    const file = `${DIR}${name.replace(/[^a-z0-9-]+/gi, '-')}.cpuprofile`;
    writeFileSync(file, JSON.stringify(profile));
    process.stderr.write(`bench: profile ${file}\n`);
  }
}
