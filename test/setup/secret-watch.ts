import { afterAll } from 'vitest';
import { onLogLine } from '../../src/log.js';
import { FIXED_SECRETS, secretWatch } from '../helpers/secret-watch.js';

/**
 * Runs in every test file: gathers every log line (after scrubbing, as it reaches its destination)
 * and whatever the process itself prints, and fails the file once its own hooks are done if any
 * registered secret shows up there or in a payload the fake platforms received.
 */

for (const { value, label } of FIXED_SECRETS) secretWatch.secret(value, label);

const stopLogTap = onLogLine((line) => secretWatch.log('log line', line));

/** In-process CLI entry points print straight to the process streams, bypassing the loggers. */
function observe(stream: NodeJS.WriteStream, where: string): () => void {
  const original = stream.write;
  const sink = secretWatch.outputSink(where);
  stream.write = function write(this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]): boolean {
    if (typeof chunk === 'string' || chunk instanceof Uint8Array) sink(typeof chunk === 'string' ? chunk : Buffer.from(chunk));
    return (original as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as NodeJS.WriteStream['write'];
  return () => {
    stream.write = original;
  };
}

const restoreStdout = observe(process.stdout, 'stdout of the test process');
const restoreStderr = observe(process.stderr, 'stderr of the test process');

afterAll(() => {
  stopLogTap();
  restoreStdout();
  restoreStderr();
  try {
    secretWatch.assertClean();
  } finally {
    secretWatch.clearSightings();
  }
});
