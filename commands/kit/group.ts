import { defineCommand, type CommandSpec } from './spec.js';

type Group = NonNullable<CommandSpec['group']>;

/** What every `<group> <verb>` command shares: its name, words, aliases and group. */
export function verbSpec(group: Group, verb: string, order: number, aliases: readonly string[] = []) {
  return { name: `${group}-${verb}`, order, words: [group, verb], aliases: aliases.map((a) => [group, a]), group } as const;
}

/**
 * `digest` or `alert` alone: what the group is, and its commands. Discord lists the group's commands
 * themselves; there is nothing to run without a subcommand there.
 */
export function groupIntro(o: {
  group: Group;
  order: number;
  aliases?: readonly (readonly string[])[];
  summary: string;
  verbs: readonly string[];
  title: string;
  text: string;
}): CommandSpec {
  return defineCommand({
    name: o.group,
    order: o.order,
    words: [o.group],
    ...(o.aliases ? { aliases: o.aliases } : {}),
    summary: o.summary,
    examples: [o.group],
    options: [],
    group: o.group,
    // Where there is no such service to manage, the group says so rather than list its commands.
    preconditions: [o.group === 'digest' ? 'digests' : 'alerts'],
    audience: 'asker',
    discord: false,
    text: {
      usage: '',
      parse: (rest) =>
        rest.trim()
          ? {
              ok: false,
              message: `Unknown ${o.group} command '${rest.trim().split(' ')[0]!.slice(0, 30)}': use ${o.verbs.slice(0, -1).join(', ')} or ${o.verbs.at(-1)}.`,
            }
          : { ok: true, args: {} },
      format: () => '',
    },
    handler: (ctx) => ({
      kind: 'text',
      title: o.title,
      text: o.text,
      commands: ctx.catalogue.help(o.group).filter((h) => h.usage.command !== o.group),
    }),
  });
}
