import type { CommandRef, Inline } from './model.js';

/**
 * Inline text written out by an adapter: `text` escapes the plain parts for its platform, `ref`
 * writes a command in its own syntax (already safe to show, so it is not escaped again).
 */
export function renderInline(inline: Inline, text: (s: string) => string, ref: (r: CommandRef) => string): string {
  if (typeof inline === 'string') return text(inline);
  return inline.map((part) => (typeof part === 'string' ? text(part) : ref(part.ref))).join('');
}

/** Inline text with every command written as `write` gives it, unescaped (logs, fallbacks, tests). */
export function plainInline(inline: Inline | undefined, write: (r: CommandRef) => string): string {
  return inline === undefined ? '' : renderInline(inline, (s) => s, write);
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
