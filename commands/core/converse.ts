import { closest, understand } from '../../src/intents/understand.js';
import type { Logger } from '../../src/log.js';
import type { Action, Reply } from '../../src/reply/model.js';
import type { Caller, CommandContext } from '../kit/context.js';
import type { Args } from '../kit/spec.js';
import type { Registry } from './registry.js';
import { invoke, runText, withCommandText, type RunResult } from './run.js';

/** Words enough that text read as one name is more likely a sentence polbot did not follow. */
const SENTENCE_WORDS = 3;

/**
 * What a person wrote to polbot in their own words (a mention, a direct message): a question of
 * the intent table becomes its command; anything the slash grammar takes runs as written; text
 * that would only be read as an unknown name, when it is a sentence, gets three questions close
 * to it instead of a lookup of the whole sentence. Names still go through the commands' own
 * resolution, so an ambiguous one asks and an unknown one says so: nothing here picks an entity.
 */
export async function converse(ctx: CommandContext, registry: Registry, text: string, caller: Caller, log?: Logger): Promise<RunResult> {
  const understood = understand(text);
  if (understood) return invoke(ctx, registry, { command: understood.command.command, args: understood.command.args as Args }, caller, log);
  const parsed = registry.grammar.parse(text);
  // A command typed with something wrong in it gets that command's own usage, as when typed after /pol.
  if (!parsed.ok) return runText(ctx, registry, text, caller, log);
  if (!(await unknownSentence(ctx, parsed.invocation.command, parsed.invocation.args, text)))
    return invoke(ctx, registry, parsed.invocation, caller, log);
  const { found } = await ctx.resolver.findIn(text, 1).catch(() => ({ found: [] }));
  return { command: 'not_understood', reply: withCommandText(notUnderstood(text, found[0]?.name), registry) };
}

/** A card asked for by a whole sentence that names nothing polbot knows. */
async function unknownSentence(ctx: CommandContext, command: string, args: Args, text: string): Promise<boolean> {
  if (command !== 'card' || text.trim().split(/\s+/).length < SENTENCE_WORDS) return false;
  const name = typeof args.name === 'string' ? args.name : '';
  const resolution = await ctx.resolver.resolve(name).catch(() => null);
  return resolution?.status === 'not_found';
}

function notUnderstood(text: string, mentioned: string | undefined): Reply {
  const examples = closest(text, mentioned?.toLowerCase());
  const actions: Action[] = examples.flatMap((q) => {
    const u = understand(q);
    return u ? [{ label: q, run: u.command }] : [];
  });
  return {
    kind: 'text',
    audience: 'asker',
    title: 'I did not follow that',
    text: `Ask me in words like these, or a command as it is typed (help lists them): ${examples.map((q) => `“${q}”`).join(', ')}.`,
    actions,
  };
}
