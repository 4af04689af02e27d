import { UpstreamError } from '../../src/api/errors.js';
import type { Logger } from '../../src/log.js';
import { inline, placeholder, ref } from '../../src/reply/inline.js';
import type { Action, CommandRef, ErrorReply, Inline, Menu, Reply } from '../../src/reply/model.js';
import type { Caller, CommandContext } from '../kit/context.js';
import type { CommandSpec, Invocation } from '../kit/spec.js';
import type { Registry } from './registry.js';
import { refusal } from './preconditions.js';
import { validate } from './validate.js';

export interface RunResult {
  reply: Reply;
  /** The command that answered, for metrics and logs; `invalid` when the input was not a command. */
  command: string;
}

function hintFor(err: UpstreamError, ctx: CommandContext): Inline | undefined {
  const health = ctx.source.supports('health')
    ? inline`Try again in a minute; ${ref('health')} shows the service status.`
    : 'Try again in a minute.';
  switch (err.kind) {
    case 'not_found':
      return ctx.source.supports('search') ? inline`Check the name with ${ref('search', { text: placeholder('text') })}.` : undefined;
    case 'rate_limited':
      return 'Try again in a minute.';
    case 'unavailable':
    case 'timeout':
      return health;
    // The person cannot fix an unreadable answer, but a transient one passes; the operators have the detail.
    case 'bad_response':
      return 'Try again in a few minutes; this has been logged for the operators.';
    case 'unauthorized':
      return 'The bot operator needs to check the API key.';
    case 'not_available':
      return 'The operator can configure POL_API_BASE_URL to enable it.';
    default:
      return undefined;
  }
}

export function errorReply(err: unknown, ctx: CommandContext, log?: Logger): ErrorReply {
  if (err instanceof UpstreamError) {
    if (err.kind === 'bad_response' || err.kind === 'unauthorized')
      log?.warn({ route: err.route, kind: err.kind, detail: err.detail }, 'upstream error');
    const hint = hintFor(err, ctx);
    return { kind: 'error', message: err.message, ...(hint ? { hint } : {}) };
  }
  log?.error({ err }, 'command failed');
  return { kind: 'error', message: 'Something went wrong on our side. It has been logged.', hint: 'Please try again.' };
}

/** A mistake in the input, with a runnable example of the command that was meant. */
export function usageError(message: string, spec: CommandSpec | undefined, registry: Registry): ErrorReply {
  const example = spec ? registry.help().find((h) => h.usage.command === spec.name)?.examples[0] : undefined;
  return { kind: 'error', audience: 'asker', message, ...(example ? { hint: inline`For example: ${example}` } : {}) };
}

/**
 * Every command a reply names carries its typed form too, for the console, Slack and scripts
 * (`actions[].command`); Discord writes the same references from their arguments.
 */
/** An action with its command's typed form, as `actions[].command` promises. */
export function typedAction(registry: Registry, a: Action): Action {
  return { ...a, run: { ...a.run, text: registry.text(a.run) }, command: registry.text(a.run) };
}

export function withCommandText(reply: Reply, registry: Registry): Reply {
  const typed = (r: CommandRef): CommandRef => ({ ...r, text: registry.text(r) });
  const fill = (a: Action): Action => typedAction(registry, a);
  const fillMenus = (menus: readonly Menu[]): Menu[] => menus.map((m) => ({ ...m, options: m.options.map(fill) }));
  const text = <T extends Inline | undefined>(t: T): T =>
    (typeof t === 'string' || t === undefined
      ? t
      : t.map((p) => (typeof p === 'string' || !('ref' in p) ? p : { ref: typed(p.ref) }))) as T;
  switch (reply.kind) {
    case 'choice':
      return {
        ...reply,
        prompt: text(reply.prompt),
        ...(reply.note !== undefined ? { note: text(reply.note) } : {}),
        options: reply.options.map(fill),
      };
    case 'card':
      return {
        ...reply,
        ...(reply.actions ? { actions: reply.actions.map(fill) } : {}),
        ...(reply.menus ? { menus: fillMenus(reply.menus) } : {}),
      };
    case 'table':
      return {
        ...reply,
        ...(reply.note !== undefined ? { note: text(reply.note) } : {}),
        ...(reply.actions ? { actions: reply.actions.map(fill) } : {}),
        ...(reply.menus ? { menus: fillMenus(reply.menus) } : {}),
      };
    case 'text':
      return {
        ...reply,
        ...(reply.text !== undefined ? { text: text(reply.text) } : {}),
        // A usage reference is for surfaces with options (Discord); the typed form is `typed` already.
        ...(reply.commands ? { commands: reply.commands.map((c) => ({ ...c, examples: c.examples.map(typed) })) } : {}),
        ...(reply.actions ? { actions: reply.actions.map(fill) } : {}),
        ...(reply.menus ? { menus: fillMenus(reply.menus) } : {}),
      };
    case 'error':
      return reply.hint !== undefined ? { ...reply, hint: text(reply.hint) } : reply;
  }
}

/** Runs a typed invocation (from any surface). Never throws: every failure becomes a short, safe error reply. */
export async function invoke(
  ctx: CommandContext,
  registry: Registry,
  invocation: Invocation,
  caller: Caller,
  log?: Logger,
): Promise<RunResult> {
  const spec = registry.get(invocation.command);
  if (!spec)
    return {
      command: 'invalid',
      reply: withCommandText({ kind: 'error', message: 'That command no longer exists.', hint: inline`See ${ref('help')}.` }, registry),
    };
  const checked = validate(spec, invocation.args);
  if (!checked.ok) return { command: 'invalid', reply: withCommandText(usageError(checked.message, spec, registry), registry) };
  const context = { ...ctx, caller, catalogue: registry };
  let reply: Reply;
  try {
    reply = refusal(spec, context) ?? (await spec.handler(context, checked.args));
  } catch (err) {
    reply = errorReply(err, ctx, log);
  }
  if (spec.audience && !reply.audience) reply = { ...reply, audience: spec.audience };
  return { command: spec.name, reply: withCommandText(reply, registry) };
}

/** Typed text in (Slack, the console), Reply out. */
export async function runText(ctx: CommandContext, registry: Registry, text: string, caller: Caller, log?: Logger): Promise<RunResult> {
  const parsed = registry.grammar.parse(text);
  if (!parsed.ok) return { command: 'invalid', reply: withCommandText(usageError(parsed.message, parsed.spec, registry), registry) };
  return invoke(ctx, registry, parsed.invocation, caller, log);
}
