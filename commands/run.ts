import { UpstreamError } from '../src/api/errors.js';
import type { Logger } from '../src/log.js';
import type { ErrorReply, Reply } from '../src/reply/model.js';
import { cardCommand } from './card.js';
import { chartCommand } from './chart.js';
import { compareCommand } from './compare.js';
import { CONSOLE_CALLER, type Caller, type CommandContext } from './context.js';
import { digestCommand } from './digest.js';
import { flagsCommand } from './flags.js';
import type { Command, CommandName } from './grammar.js';
import { healthCommand } from './health.js';
import { helpCommand } from './help.js';
import { indexCommand } from './index-pol.js';
import { searchCommand, topCommand, trendingCommand } from './lists.js';
import { parse } from './parse.js';

const HINTS: Partial<Record<UpstreamError['kind'], string>> = {
  not_found: 'Check the name with /pol search <text>.',
  rate_limited: 'Try again in a minute.',
  unavailable: 'Try again in a minute; /pol health shows the service status.',
  timeout: 'Try again in a minute; /pol health shows the service status.',
  // The person cannot fix an unreadable answer, but a transient one passes; the operators have the detail.
  bad_response: 'Try again in a few minutes; this has been logged for the operators.',
  unauthorized: 'The bot operator needs to check the API key.',
  not_available: 'The operator can configure POL_API_BASE_URL to enable it.',
};

export function errorReply(err: unknown, log?: Logger): ErrorReply {
  if (err instanceof UpstreamError) {
    if (err.kind === 'bad_response' || err.kind === 'unauthorized') log?.warn({ route: err.route, kind: err.kind, detail: err.detail }, 'upstream error');
    const hint = HINTS[err.kind];
    return { kind: 'error', message: err.message, ...(hint ? { hint } : {}) };
  }
  log?.error({ err }, 'command failed');
  return { kind: 'error', message: 'Something went wrong on our side. It has been logged.', hint: 'Please try again.' };
}

function dispatch(ctx: CommandContext, command: Command, caller: Caller): Promise<Reply> | Reply {
  switch (command.name) {
    case 'card':
      return cardCommand(ctx, command.target);
    case 'flags':
      return flagsCommand(ctx, command.target);
    case 'chart':
      return chartCommand(ctx, command.target, command.range, command.chart);
    case 'compare':
      return compareCommand(ctx, command.targets);
    case 'top':
      return topCommand(ctx, command.kind);
    case 'search':
      return searchCommand(ctx, command.text);
    case 'trending':
      return trendingCommand(ctx);
    case 'index':
      return indexCommand(ctx);
    case 'health':
      return healthCommand(ctx);
    case 'help':
      return helpCommand();
    case 'digest':
      return digestCommand(ctx, command.args, caller);
  }
}

export interface RunResult {
  reply: Reply;
  command: CommandName | 'invalid' | 'rate_limited';
}

/** Text in, Reply out. Never throws: every failure becomes a short, safe error reply. */
export async function runCommand(ctx: CommandContext, text: string, log?: Logger, caller: Caller = CONSOLE_CALLER): Promise<RunResult> {
  const parsed = parse(text);
  if (!parsed.ok) {
    return { command: 'invalid', reply: { kind: 'error', message: parsed.message, hint: `Usage: ${parsed.usage} (for example ${parsed.example})` } };
  }
  try {
    return { command: parsed.command.name, reply: await dispatch(ctx, parsed.command, caller) };
  } catch (err) {
    return { command: parsed.command.name, reply: errorReply(err, log) };
  }
}
