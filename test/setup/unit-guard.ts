import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

/**
 * The unit tier starts no server and no child process: anything that tries is a test in the wrong
 * tier, and fails here rather than quietly slowing the quick run down.
 */
function refuse(what: string): never {
  throw new Error(`a unit test may not ${what}; move the test to test/integration/`);
}

net.Server.prototype.listen = function listen(): never {
  refuse('start a server');
};
for (const name of ['spawn', 'fork', 'exec', 'execFile', 'spawnSync', 'execSync', 'execFileSync'] as const) {
  (childProcess as unknown as Record<string, unknown>)[name] = () => refuse('start a child process');
}
// Named imports (`import { spawn } from 'node:child_process'`) see the patched functions only after this.
syncBuiltinESMExports();
