import { PassThrough } from 'node:stream';
import { startConsole } from '../../adapters/console/repl.js';
import type { Core } from '../../commands/core/core.js';

/** A console on piped input; `type` sends one line and resolves with the answer printed for it. */
export class Typist {
  private out = '';
  private readonly input = new PassThrough();
  private readonly output = new PassThrough();
  readonly finished: Promise<void>;

  constructor(core: Core, chartDir: string) {
    this.output.on('data', (chunk: Buffer) => (this.out += chunk.toString()));
    this.finished = startConsole(core, { input: this.input, output: this.output, color: false, chartDir });
  }

  async type(line: string): Promise<string> {
    const from = this.out.length;
    this.input.write(`${line}\n`);
    const deadline = Date.now() + 10_000;
    // An answer is printed whole, then the prompt comes back.
    while (!this.out.slice(from).endsWith('\n\n/pol ')) {
      if (Date.now() > deadline) throw new Error(`no answer to "${line}"`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return this.out.slice(from, -'\n\n/pol '.length);
  }

  close(): Promise<void> {
    this.input.end('exit\n');
    return this.finished;
  }
}
