import type { CommandRef, RefArg } from '../../src/reply/model.js';
import type { Args, ArgValue, ChoiceOption, CommandSpec, Invocation, OptionSpec, Parsed, TextOption } from '../kit/spec.js';
import { isExplicit } from '../kit/target.js';
import { validate } from './validate.js';

/**
 * The typed form of every command (Slack's `/pol <text>` and the console), read from the
 * registry's declarations: a command's words, then its main argument, then trailing choice words
 * (`chart bitcoin 365d categories`). `format` writes an invocation back in the same form, and
 * whatever it writes parses back to the same invocation.
 */

export type TextResult = { ok: true; invocation: Invocation } | { ok: false; message: string; spec: CommandSpec };

const MAX_INPUT = 500;

/** What `parse` does to whitespace and invisible characters. */
export function normalise(text: string): string {
  return text
    .replace(/[\p{Cc}\p{Cf}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Edit distance counting a swap of neighbours as one edit, for typos like "chrat"; words are short. */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** Splits a list of names: commas or " vs " when present, quoted names, otherwise one word each. */
export function splitNames(text: string): string[] {
  if (/,|\bvs\.?\b/i.test(text))
    return text
      .split(/,|\bvs\.?\b/i)
      .map((s) => s.trim())
      .filter(Boolean);
  const names: string[] = [];
  const re = /"([^"]+)"|“([^”]+)”|(\S+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) names.push((m[1] ?? m[2] ?? m[3]!).trim());
  return names.filter(Boolean);
}

const unquote = (text: string): string => {
  const m = /^"([^"]*)"$|^“([^”]*)”$/.exec(text);
  return m ? (m[1] ?? m[2] ?? '').trim() : text;
};

const choiceWord = (o: ChoiceOption, w: string): string | undefined => (o.choices.some((c) => c.value === w) ? w : o.aliases?.[w]);

function optionUsage(o: OptionSpec): string {
  const core = (() => {
    switch (o.type) {
      case 'entity':
        return o.kind === 'exchange' ? '<exchange>' : o.kind === 'project' ? '<project>' : '<name or slug>';
      case 'entities':
        return `<a>, <b>${o.max > 2 ? ' [, ...]' : ''}`;
      case 'choice':
        return o.choices.map((c) => c.value).join('|');
      case 'text':
        return o.keywords?.length ? `${o.keywords[0]} <${o.label ?? o.name}>` : `<${o.name}>`;
      case 'integer':
        return `<${o.name}>`;
    }
  })();
  if (o.type === 'choice') return `[${core}]`;
  return o.required ? core : `[${core}]`;
}

export class TextGrammar {
  private readonly forms: { words: readonly string[]; spec: CommandSpec }[];
  private readonly fallback: CommandSpec;
  private readonly firstWords: string[];

  constructor(specs: readonly CommandSpec[]) {
    // Longest forms first, so `digest add` wins over `digest`.
    this.forms = specs
      .flatMap((spec) => [spec.words, ...(spec.aliases ?? [])].map((words) => ({ words, spec })))
      .filter((f) => f.words.length > 0)
      .sort((a, b) => b.words.length - a.words.length);
    const fallback = specs.find((s) => s.words.length === 0);
    if (!fallback) throw new Error('the registry needs a command typed as a name alone');
    this.fallback = fallback;
    this.firstWords = [...new Set(specs.filter((s) => s.words.length > 0).map((s) => s.words[0]!))];
  }

  usage(spec: CommandSpec): string {
    if (spec.text) return [...spec.words, spec.text.usage].filter(Boolean).join(' ');
    const options = [...spec.options].sort((a, b) => Number(a.type === 'choice') - Number(b.type === 'choice'));
    return [...spec.words, ...options.map(optionUsage)].join(' ');
  }

  parse(input: string): TextResult {
    const text = normalise(input);
    const help = this.forms.find((f) => f.spec.name === 'help')?.spec;
    if (!text && help) return { ok: true, invocation: { command: help.name, args: {} } };
    if (text.length > MAX_INPUT)
      return { ok: false, spec: this.fallback, message: `That is too long (${text.length} characters); names are short.` };

    const tokens = text.split(' ');
    const lower = tokens.map((t) => t.toLowerCase());
    const form = this.forms.find((f) => f.words.length <= tokens.length && f.words.every((w, i) => lower[i] === w));
    if (!form) {
      const [head = '', ...rest] = lower;
      // A mistyped command followed by more words ("chrat bitcoin") is a usage error, not a name.
      if (rest.length && head.length >= 4 && !isExplicit(text) && !/^["“]/.test(head)) {
        const near = this.firstWords.find((w) => distance(head, w) <= (w.length > 5 ? 2 : 1));
        const spec = near ? this.forms.find((f) => f.words[0] === near)!.spec : undefined;
        if (spec) return { ok: false, spec, message: `Unknown command '${tokens[0]}'. Did you mean '${near}'?` };
      }
      return this.finish(this.fallback, this.generic(this.fallback, text));
    }
    const rest = tokens.slice(form.words.length).join(' ');
    return this.finish(form.spec, form.spec.text ? form.spec.text.parse(rest) : this.generic(form.spec, rest));
  }

  private finish(spec: CommandSpec, parsed: Parsed): TextResult {
    if (!parsed.ok) return { ok: false, spec, message: parsed.message };
    const checked = validate(spec, parsed.args);
    return checked.ok
      ? { ok: true, invocation: { command: spec.name, args: checked.args } }
      : { ok: false, spec, message: checked.message };
  }

  private generic(spec: CommandSpec, rest: string): Parsed {
    const args: Record<string, ArgValue> = {};
    const keyed = spec.options.filter((o): o is TextOption => o.type === 'text' && (o.keywords?.length ?? 0) > 0);
    const words: string[] = [];
    const all = rest.split(' ').filter(Boolean);
    // `from 2026-03-01`: a keyword takes the next word as its option's value, wherever it stands.
    for (let i = 0; i < all.length; i++) {
      const option = keyed.find((o) => o.keywords!.includes(all[i]!.toLowerCase()));
      if (!option) {
        words.push(all[i]!);
        continue;
      }
      const value = all[i + 1];
      if (value === undefined)
        return { ok: false, message: `'${all[i]}' needs a value after it, e.g. '${all[i]} ${option.label ?? option.name}'.` };
      if (args[option.name] !== undefined) return { ok: false, message: `'${option.keywords![0]}' is given twice.` };
      args[option.name] = value;
      i++;
    }
    const choices = spec.options.filter((o): o is ChoiceOption => o.type === 'choice');
    const main = spec.options.find((o) => o.type !== 'choice' && !keyed.includes(o as TextOption));
    // Choice words come after the main argument; peel them off the end.
    while (words.length > 0) {
      const w = words[words.length - 1]!.toLowerCase();
      // A quoted word is a name as typed, never a choice nor a near miss of one ("voice" the project),
      // and so is the last word of a quoted name ("chart voice" is one name, not a chart of voice).
      if (/^["“]|["”]$/.test(w)) break;
      const option = choices.find((o) => args[o.name] === undefined && choiceWord(o, w) !== undefined);
      if (option) {
        args[option.name] = choiceWord(option, w)!;
        words.pop();
        continue;
      }
      const near = choices.find(
        (o) => o.near?.test(w) || (o.typos && w.length >= 5 && o.choices.some((c) => distance(w.toLowerCase(), c.value) <= 2)),
      );
      if (near) return { ok: false, message: `Unknown ${near.name} '${w}': use one of ${near.choices.map((c) => c.value).join(', ')}.` };
      break;
    }
    const leftover = words.join(' ');
    if (!main) {
      if (!leftover) return { ok: true, args };
      const only = choices.length === 1 ? choices[0]! : undefined;
      if (only && words.length === 1) {
        return {
          ok: false,
          message: `Unknown ${only.name} '${leftover.slice(0, 40)}': use ${only.choices.map((c) => c.value).join(' or ')}.`,
        };
      }
      return {
        ok: false,
        message: `'${spec.words.join(' ')}' takes ${only ? `only ${only.choices.map((c) => c.value).join(' or ')}` : 'no arguments'}.`,
      };
    }
    if (!leftover) return { ok: true, args };
    switch (main.type) {
      case 'entities':
        args[main.name] = splitNames(leftover);
        break;
      case 'integer': {
        const m = /^#?(\d{1,9})$/.exec(leftover);
        if (!m) return { ok: false, message: `'${leftover.slice(0, 20)}' is not a ${main.label ?? `valid ${main.name}`}.` };
        args[main.name] = Number(m[1]);
        break;
      }
      default:
        args[main.name] = unquote(leftover);
    }
    return { ok: true, args };
  }

  /** The typed form of a reference (`chart project:bitcoin 365d pol`; placeholders as `<text>`). */
  format(ref: CommandRef, spec: CommandSpec): string {
    const args = Object.fromEntries(Object.entries(ref.args ?? {}).map(([k, v]) => [k, argText(v)])) as Args;
    if (spec.text) return [...spec.words, spec.text.format(args)].filter(Boolean).join(' ');
    const keyed = spec.options.filter((o): o is TextOption => o.type === 'text' && (o.keywords?.length ?? 0) > 0);
    const main = spec.options.find((o) => o.type !== 'choice' && !keyed.includes(o as TextOption));
    const tail = [
      ...spec.options
        .filter((o): o is ChoiceOption => o.type === 'choice')
        .map((o) => args[o.name])
        .filter((v): v is string => typeof v === 'string' && v !== ''),
      ...keyed.flatMap((o) =>
        typeof args[o.name] === 'string' && args[o.name] !== '' ? [`${o.keywords![0]} ${String(args[o.name])}`] : [],
      ),
    ];
    const value = main ? args[main.name] : undefined;
    const plain = (v: string) => [...spec.words, v, ...tail].filter(Boolean).join(' ');
    if (value === undefined || value === '') return plain('');
    if (Array.isArray(value)) return plain(value.map((n) => n.replace(/,/g, ' ')).join(', '));
    const text = String(value);
    const bare = plain(text);
    // A name that the parser would read differently ("index coop" as the index command, a chart
    // name ending in "all") goes in quotes, which the parser takes as one name.
    if (main?.type !== 'entity' && main?.type !== 'text') return bare;
    const back = this.parse(bare);
    const same = back.ok && back.invocation.command === spec.name && back.invocation.args[main.name] === text;
    return same || /^<.*>$/.test(text) ? bare : plain(`"${text.replace(/["“”]/g, '')}"`);
  }
}

function argText(v: RefArg): ArgValue {
  if (typeof v === 'string' || typeof v === 'number') return v;
  if (Array.isArray(v)) return v as readonly string[];
  return `<${(v as { placeholder: string }).placeholder}>`;
}
