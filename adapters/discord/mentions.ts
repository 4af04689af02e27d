import type { CommandSpec } from '../../commands/core/index.js';
import type { CommandHelp, CommandRef, RefArg } from '../../src/reply/model.js';
import { discordOptionNames, gatedCommand, placeOf } from './commands.js';
import { clean } from './escape.js';

/**
 * Commands written the Discord way: a command mention (`</pol exchange:ID>`, which Discord shows
 * as a chip that opens the command) followed by the options to fill in, `name: kraken`. Until the
 * registered ids are known, the command's name stands in code.
 */
export class CommandMentions {
  private readonly ids = new Map<string, string>();

  constructor(private readonly specs: readonly CommandSpec[]) {}

  /** Ids of the registered top-level commands, by name. */
  setIds(ids: Readonly<Record<string, string>>): void {
    for (const [name, id] of Object.entries(ids)) if (/^\d{5,25}$/.test(id)) this.ids.set(name, id);
  }

  private head(spec: CommandSpec): string {
    const gated = gatedCommand(spec);
    const place = placeOf(spec) ?? (gated ? { command: gated, subcommand: '' } : undefined);
    if (!place) return '`/pol`';
    const name = [place.command, place.subcommand].filter(Boolean).join(' ');
    const id = this.ids.get(place.command);
    return id && place.subcommand ? `</${name}:${id}>` : `\`/${name}\``;
  }

  ref(ref: CommandRef): string {
    const spec = this.specs.find((s) => s.name === ref.command);
    if (!spec) return '`/pol help`';
    return [this.head(spec), ...optionsOf(spec, ref)].join(' ');
  }

  /**
   * A help entry's examples as the options to fill in (`name: pepe` `section: security`), each
   * example apart: the command itself is on the usage line just above.
   */
  examples(help: CommandHelp): string {
    const spec = this.specs.find((s) => s.name === help.usage.command);
    if (!spec || !placeOf(spec) || !help.examples.length) return '';
    const shown = help.examples.map((e) => optionsOf(spec, e).join(' '));
    if (shown.every((e) => !e)) return '';
    return `e.g. ${shown.map((e) => e || 'the command alone').join(' · ')}`;
  }

  /** A help line: the command, its options (optional ones in brackets), and what it does. */
  usage(help: CommandHelp): string {
    const spec = this.specs.find((s) => s.name === help.usage.command);
    if (!spec || !placeOf(spec)) return '';
    const options = spec.options.flatMap((o) =>
      discordOptionNames(o).map((n, i) => (o.required && (o.type !== 'entities' || i < o.min) ? `${n}:` : `[${n}:]`)),
    );
    return [this.head(spec), ...options.map((o) => `\`${o}\``)].join(' ');
  }
}

/** The options an invocation fills in, each as inline code: `name: kraken`. */
function optionsOf(spec: CommandSpec, ref: CommandRef): string[] {
  const options = spec.options.flatMap((o) => {
    const v = ref.args?.[o.name];
    if (v === undefined) return [];
    const names = discordOptionNames(o);
    if (Array.isArray(v) && names.length > 1)
      return (v as readonly string[]).slice(0, names.length).map((item, i) => `${names[i]}: ${item}`);
    return [`${names[0]}: ${valueText(v)}`];
  });
  return options.map((o) => `\`${codeSafe(o)}\``);
}

function valueText(v: RefArg): string {
  if (typeof v === 'string' || typeof v === 'number') return String(v);
  if (Array.isArray(v)) return (v as readonly string[]).join(', ');
  return `<${(v as { placeholder: string }).placeholder}>`;
}

/** Inside inline code nothing renders, but a backtick would end it early. */
const codeSafe = (text: string): string => clean(text).replace(/`/g, 'ˋ').replace(/\n/g, ' ').slice(0, 120);
