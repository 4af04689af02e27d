import type { CommandRef } from '../reply/model.js';
import { INTENTS, type IntentFamily } from './table.js';

/**
 * A question in plain words as a command, through the intent table (src/intents/table.ts): the
 * first family whose pattern matches the whole question, with the names it captured. Null when
 * none does; `closest` then offers examples near what was asked.
 */

/** Lower case, one kind of apostrophe, polite openings and closing punctuation gone, spaces single. */
export function normalise(text: string): string {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .replace(/[\u2018\u2019\u02bc]/g, "'")
      .replace(/[\u201c\u201d]/g, '"')
      .replace(/\s+/g, ' ')
      .trim()
      // A mention of the bot as typed (`@polbot`), where a surface leaves it in.
      .replace(/^@[\w.-]+[ ,:]*/, '')
      .replace(/^(?:hey|hi|hello|yo)\b[ ,]*/, '')
      .replace(/^(?:polbot\b[ ,:]*)/, '')
      .replace(/^(?:please|pls|can you|could you|would you)\b[ ,]*/, '')
      .replace(/^(?:tell me|do you know)\s+(?=(?:is|how|what|why|which|any|does|has)\b)/, '')
      .replace(/[ ?!.,;:]+$/, '')
      .replace(/\s*,?\s*please$/, '')
      .trim()
  );
}

/** What a captured name was typed as, without quotes, a leading "the" or a trailing possessive. */
function cleanName(raw: string): string {
  return raw
    .trim()
    .replace(/^["'`]+|["'`]+$/g, '')
    .replace(/^the\s+/, '')
    .replace(/(?:'s|s')$/, (m) => (m === "s'" ? 's' : ''))
    .trim();
}

export interface Understood {
  family: string;
  command: CommandRef;
}

export function understand(text: string): Understood | null {
  const t = normalise(text);
  if (!t) return null;
  for (const intent of INTENTS) {
    for (const pattern of intent.patterns) {
      const m = pattern.exec(t);
      if (!m) continue;
      const groups: Record<string, string> = {};
      for (const [k, v] of Object.entries(m.groups ?? {}))
        if (v !== undefined) groups[k] = ['name', 'a', 'b'].includes(k) ? cleanName(v) : v;
      // A capture that is empty once cleaned names nothing: the question is not this family's.
      if (['name', 'a', 'b'].some((k) => k in groups && !groups[k])) continue;
      return { family: intent.family, command: intent.command(groups) };
    }
  }
  return null;
}

/**
 * Three questions close to one that matched nothing: the families sharing most words with it,
 * the table's order breaking ties, each with `name` (a name the question mentions, or a default).
 */
export function closest(text: string, name = 'binance', count = 3): string[] {
  const words = new Set(
    normalise(text)
      .split(/[^a-z0-9']+/)
      .filter(Boolean),
  );
  const score = (f: IntentFamily) => f.keywords.filter((k) => words.has(k)).length;
  return [...INTENTS]
    .map((f, order) => ({ f, order, s: score(f) }))
    .sort((x, y) => y.s - x.s || x.order - y.order)
    .slice(0, count)
    .map(({ f }) => f.example.replace('{name}', name));
}
