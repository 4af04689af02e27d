import type { Args, ArgValue, CommandSpec, Parsed } from '../kit/spec.js';

/** Names are short; the resolver reads at most this many characters of one. */
export const MAX_NAME = 100;

/**
 * Arguments checked against a command's declaration, whichever surface they came from (typed
 * text, Discord options, a button): defaults filled in, unknown choices and missing required
 * options refused with a short sentence, lists held to their bounds.
 */
export function validate(spec: CommandSpec, raw: Args): Parsed {
  const args: Record<string, ArgValue> = {};
  for (const o of spec.options) {
    let v = raw[o.name];
    if (typeof v === 'string') v = v.trim();
    if (v === '' || (Array.isArray(v) && v.length === 0)) v = undefined;
    if (v === undefined) {
      if (o.type === 'choice' && o.default !== undefined) args[o.name] = o.default;
      else if (o.required) return { ok: false, message: o.missing ?? `Which ${o.name}?` };
      continue;
    }
    switch (o.type) {
      case 'entity':
      case 'text': {
        const text = String(v);
        const max = o.type === 'text' ? o.maxLength : MAX_NAME;
        if (o.type === 'text' && o.minLength !== undefined && text.length < o.minLength)
          return { ok: false, message: `The ${o.name} is too short.` };
        if (text.length > max) return { ok: false, message: `The ${o.name} is too long (${text.length} characters; at most ${max}).` };
        args[o.name] = text;
        break;
      }
      case 'entities': {
        const names = (Array.isArray(v) ? (v as readonly string[]) : [String(v)]).map((n) => n.trim()).filter(Boolean);
        if (names.length < o.min) return { ok: false, message: o.missing ?? `Name at least ${o.min}.` };
        if (names.length > o.max)
          return { ok: false, message: `That is more than I take at once: name up to ${o.max}; you named ${names.length}.` };
        if (names.some((n) => n.length > MAX_NAME)) return { ok: false, message: `Names are at most ${MAX_NAME} characters.` };
        args[o.name] = names;
        break;
      }
      case 'choice': {
        const w = String(v).toLowerCase();
        const value = o.choices.some((c) => c.value === w) ? w : o.aliases?.[w];
        if (value === undefined)
          return {
            ok: false,
            message: `Unknown ${o.name} '${String(v).slice(0, 40)}': use one of ${o.choices.map((c) => c.value).join(', ')}.`,
          };
        args[o.name] = value;
        break;
      }
      case 'integer': {
        const n = typeof v === 'number' ? v : /^#?\d{1,9}$/.test(String(v)) ? Number(String(v).replace('#', '')) : Number.NaN;
        if (!Number.isInteger(n) || n < o.min || n > o.max)
          return { ok: false, message: `'${String(v).slice(0, 20)}' is not a ${o.label ?? `valid ${o.name}`}.` };
        args[o.name] = n;
        break;
      }
    }
  }
  return { ok: true, args };
}
