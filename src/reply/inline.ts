import type { CommandRef, GroupRef, Inline, PersonRef, Reply, Section } from './model.js';

/**
 * Inline text written out by an adapter: `text` escapes the plain parts for its platform, `ref`
 * writes a command in its own syntax, `person` names someone its own way and `group` calls on a
 * group (all already safe to show, so they are not escaped again). Without `group`, a group is
 * its label in words: a surface mentions one only where it means to notify it.
 */
export function renderInline(
  inline: Inline,
  text: (s: string) => string,
  ref: (r: CommandRef) => string,
  person: (p: PersonRef) => string,
  group: (g: GroupRef) => string = (g) => text(g.label),
): string {
  if (typeof inline === 'string') return text(inline);
  return inline
    .map((part) => (typeof part === 'string' ? text(part) : 'ref' in part ? ref(part.ref) : 'group' in part ? group(part) : person(part)))
    .join('');
}

/** The groups a piece of inline text calls on. */
export function groupsIn(inline: Inline | undefined): GroupRef[] {
  return typeof inline === 'string' || inline === undefined
    ? []
    : inline.filter((p): p is GroupRef => typeof p === 'object' && 'group' in p);
}

/** A person as plain words: the name stored with them, or their id when none was. */
export const personName = (p: PersonRef): string => p.name ?? p.user;

/** Inline text with every command written as `write` gives it, unescaped (logs, fallbacks, tests). */
export function plainInline(inline: Inline | undefined, write: (r: CommandRef) => string): string {
  return inline === undefined ? '' : renderInline(inline, (s) => s, write, personName);
}

/** Builds inline text from a template: `inline\`Try ${ref('search', {text: 'x'})}.\``. */
export function inline(strings: TemplateStringsArray, ...refs: (CommandRef | string)[]): Inline {
  const out: (string | { ref: CommandRef })[] = [];
  strings.forEach((s, i) => {
    if (s) out.push(s);
    const r = refs[i];
    if (r === undefined) return;
    out.push(typeof r === 'string' ? r : { ref: r });
  });
  return out;
}

export function ref(command: string, args?: CommandRef['args']): CommandRef {
  return args ? { command, args } : { command };
}

export const placeholder = (name: string) => ({ placeholder: name });

/** The typed form of a reference, as the core filled it in (the command's name where it did not). */
export const typedText = (r: CommandRef): string => r.text ?? r.command;

/** Every piece of inline text in a reply rewritten by `map` (the rest as it was). */
export function mapInline(reply: Reply, map: (text: Inline) => Inline): Reply {
  const section = (s: Section): Section => ({
    ...s,
    ...(s.fields ? { fields: s.fields.map((f) => ({ ...f, value: map(f.value) })) } : {}),
    ...(s.items ? { items: s.items.map(map) } : {}),
  });
  switch (reply.kind) {
    case 'card':
      return { ...reply, sections: reply.sections.map(section) };
    case 'choice':
      return { ...reply, prompt: map(reply.prompt), ...(reply.note !== undefined ? { note: map(reply.note) } : {}) };
    case 'table':
      return {
        ...reply,
        ...(reply.note !== undefined ? { note: map(reply.note) } : {}),
        ...(reply.sections ? { sections: reply.sections.map(section) } : {}),
      };
    case 'text':
      return {
        ...reply,
        ...(reply.text !== undefined ? { text: map(reply.text) } : {}),
        ...(reply.sections ? { sections: reply.sections.map(section) } : {}),
      };
    case 'error':
      return reply.hint !== undefined ? { ...reply, hint: map(reply.hint) } : reply;
  }
}
