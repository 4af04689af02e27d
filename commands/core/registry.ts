import type { CommandHelp, CommandRef } from '../../src/reply/model.js';
import type { Catalogue, CommandSpec } from '../kit/spec.js';
import { TextGrammar } from './text.js';

/**
 * The registry as the rest of polbot reads it: find a command, parse and write the typed form,
 * list help. Built once from the command modules.
 */
export class Registry implements Catalogue {
  readonly grammar: TextGrammar;
  private readonly byName: Map<string, CommandSpec>;
  private readonly helpByGroup = new Map<string, CommandHelp[]>();

  constructor(readonly commands: readonly CommandSpec[]) {
    this.byName = new Map(commands.map((c) => [c.name, c]));
    if (this.byName.size !== commands.length) throw new Error('two commands share a name');
    this.grammar = new TextGrammar(commands);
  }

  get(name: string): CommandSpec | undefined {
    return this.byName.get(name);
  }

  text(ref: CommandRef): string {
    const spec = this.byName.get(ref.command);
    if (!spec) throw new Error(`no command '${ref.command}'`);
    return this.grammar.format(ref, spec);
  }

  usage(spec: CommandSpec): CommandRef {
    return { command: spec.name, args: Object.fromEntries(spec.options.map((o) => [o.name, { placeholder: o.name }])) };
  }

  help(group?: CommandSpec['group']): CommandHelp[] {
    // The commands never change while the process runs: built once per group, not per answer.
    const key = group ?? '';
    let help = this.helpByGroup.get(key);
    if (!help) {
      help = this.buildHelp(group);
      this.helpByGroup.set(key, help);
    }
    return help;
  }

  private buildHelp(group: CommandSpec['group']): CommandHelp[] {
    return this.commands
      .filter((c) => group === undefined || c.group === group)
      .map((c) => ({
        usage: this.usage(c),
        typed: this.grammar.usage(c),
        summary: c.summary,
        ...(c.group ? { group: c.group } : {}),
        examples: c.examples.map((e) => {
          const parsed = this.grammar.parse(e);
          if (!parsed.ok) throw new Error(`example '${e}' of ${c.name} does not parse: ${parsed.message}`);
          return parsed.invocation as CommandRef;
        }),
      }));
  }
}
