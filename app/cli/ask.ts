import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderReply } from '../../adapters/console/render.js';
import { writeAttachment } from '../../adapters/console/repl.js';
import { withoutSlashCommand } from '../../adapters/console/typed.js';
import { startCore } from '../core.js';
import { loadConfig, secretsOf } from '../config.js';
import { createLogger } from '../../src/log.js';
import type { Reply } from '../../src/reply/model.js';

const HELP = `Usage: polbot ask "<command text>" [--json] [--chart-out file.png]

Answers one /pol command and exits (0 for an answer, 1 for an error reply).
  --json             print the Reply as JSON (chart bytes are omitted; use --chart-out)
  --chart-out FILE   write the chart PNG to FILE`;

/** The Reply as JSON, with PNG bytes replaced by their size so the output stays readable. */
export function replyJson(reply: Reply): string {
  return JSON.stringify(
    reply,
    (key, value: unknown) => {
      if (key === 'png' && value && typeof value === 'object' && 'type' in value && (value as { type: unknown }).type === 'Buffer') {
        return { bytes: ((value as unknown as { data?: unknown[] }).data ?? []).length };
      }
      return value;
    },
    2,
  );
}

export async function runAsk(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean' }, 'chart-out': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help || positionals.length === 0) {
    process.stdout.write(`${HELP}\n`);
    return values.help ? 0 : 2;
  }
  const config = loadConfig();
  const log = createLogger({
    level: process.env.LOG_LEVEL ? config.logLevel : 'warn',
    secrets: secretsOf(config),
    destination: process.stderr,
  });
  const core = await startCore(config, { log });
  try {
    // Plain words as in a mention or a DM (`polbot ask "is binance safe?"`), and the command grammar as typed.
    const { reply } = await core.converse(withoutSlashCommand(positionals.join(' ')));
    const chartOut = values['chart-out'];
    let imagePath: string | undefined;
    if (chartOut && 'image' in reply && reply.image?.kind === 'png') {
      await writeFile(chartOut, reply.image.png);
      imagePath = chartOut;
    }
    const filePath = await writeAttachment(reply, join(tmpdir(), 'polbot-files'));
    if (values.json) process.stdout.write(`${replyJson(reply)}\n`);
    else
      process.stdout.write(
        `${renderReply(reply, { color: Boolean(process.stdout.isTTY), commands: 'ask', ...(imagePath ? { imagePath } : {}), ...(filePath ? { filePath } : {}) })}\n`,
      );
    if (chartOut && !imagePath) process.stderr.write('polbot: this answer has no chart to write\n');
    return reply.kind === 'error' ? 1 : 0;
  } finally {
    await core.close();
  }
}
