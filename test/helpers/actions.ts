import { COMMANDS } from '../../commands/core/commands.js';
import { Registry } from '../../commands/core/registry.js';
import type { Action } from '../../src/reply/model.js';

const registry = new Registry(COMMANDS);

/**
 * An action as the core builds it, from the command's typed form: the reference and its text.
 * Text that is no command (hostile strings) becomes a card lookup of that text, as typed.
 */
export function action(a: { label: string; description?: string | undefined; command: string }): Action {
  const parsed = registry.grammar.parse(a.command);
  const run = parsed.ok ? { ...parsed.invocation, text: a.command } : { command: 'card', args: { name: a.command }, text: a.command };
  return {
    label: a.label,
    ...(a.description !== undefined ? { description: a.description } : {}),
    command: a.command,
    run: run as Action['run'],
  };
}
