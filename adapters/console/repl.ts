import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Core, Invocation } from '../../commands/core/index.js';
import type { Reply } from '../../src/reply/model.js';
import { renderReply } from './render.js';
import { withoutSlashCommand } from './typed.js';

export interface ConsoleOptions {
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  color?: boolean;
  /** Where chart PNGs are written. */
  chartDir?: string;
  banner?: string;
}

/** Writes a reply's PNG, if any, and returns its path. */
export async function writeChart(reply: Reply, dir: string): Promise<string | undefined> {
  const image = 'image' in reply ? reply.image : undefined;
  if (image?.kind !== 'png') return undefined;
  await mkdir(dir, { recursive: true });
  const path = join(dir, image.filename);
  await writeFile(path, image.png);
  return path;
}

/** Writes a reply's attached file (a CSV export), if any, and returns its path. */
export async function writeAttachment(reply: Reply, dir: string): Promise<string | undefined> {
  if (reply.kind !== 'table' || !reply.file) return undefined;
  await mkdir(dir, { recursive: true });
  const path = join(dir, reply.file.filename);
  await writeFile(path, reply.file.bytes);
  return path;
}

/**
 * An interactive `/pol` prompt. Answers a numbered choice with the chosen option; reads piped
 * input line by line too, so `echo binance | polbot start` works.
 */
export async function startConsole(core: Core, options: ConsoleOptions = {}): Promise<void> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const color = options.color ?? Boolean((output as NodeJS.WriteStream).isTTY);
  const chartDir = options.chartDir ?? join(tmpdir(), 'polbot-charts');
  const rl = createInterface({ input, output, terminal: Boolean((input as NodeJS.ReadStream).isTTY) });
  let choices: Invocation[] = [];

  if (options.banner) output.write(`${options.banner}\n`);
  rl.setPrompt('/pol ');
  rl.prompt();
  for await (const raw of rl) {
    const line = raw.trim();
    if (line === 'exit' || line === 'quit') break;
    if (!line) {
      rl.prompt();
      continue;
    }
    const picked = /^\d+$/.test(line) && choices.length ? choices[Number(line) - 1] : undefined;
    if (/^\d+$/.test(line) && choices.length && !picked) {
      output.write(`Choose a number from 1 to ${choices.length}.\n`);
      rl.prompt();
      continue;
    }
    // A numbered pick runs the chosen invocation itself, not its text read back.
    const { reply } = picked ? await core.invoke(picked) : await core.converse(withoutSlashCommand(line));
    choices =
      reply.kind === 'choice' ? reply.options.map((o) => ({ command: o.run.command, args: (o.run.args ?? {}) as Invocation['args'] })) : [];
    const imagePath = await writeChart(reply, chartDir).catch(() => undefined);
    const filePath = await writeAttachment(reply, chartDir).catch(() => undefined);
    output.write(
      `${renderReply(reply, { color, commands: 'prompt', ...(imagePath ? { imagePath } : {}), ...(filePath ? { filePath } : {}) })}\n\n`,
    );
    rl.prompt();
  }
  rl.close();
}
