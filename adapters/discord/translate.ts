import type { Command } from '../../commands/grammar.js';
import { parse } from '../../commands/parse.js';
import { POL, POL_DIGEST } from './commands.js';

/**
 * Slash-command options -> the command text the core parses. Pure.
 *
 * Options are structured, text is not: a name typed as "top projects" or "index coop" would be
 * read by the grammar as a different command, and a chart name ending in "all" or "pol" would
 * lose that word to the range/kind. Every text built here is therefore parsed back, and used only
 * when the grammar reads it as the command the person chose. Picks from autocomplete are explicit
 * references (`project:slug`) and always round-trip.
 */

export type OptionValue = string | number | boolean;

export interface SlashInput {
  command: string;
  subcommand: string | null;
  options: Readonly<Record<string, OptionValue | undefined>>;
}

export type Translation = { ok: true; text: string } | { ok: false; message: string; hint?: string };

const PICK_HINT = 'Pick it from the suggestions while typing; those always work.';

/** What `parse` does to whitespace and invisible characters, so a round trip compares like with like. */
export function normalise(text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}]/gu, ' ').replace(/\s+/g, ' ').trim();
}

function str(options: SlashInput['options'], name: string): string {
  const v = options[name];
  return v === undefined ? '' : normalise(String(v));
}

const ok = (text: string): Translation => ({ ok: true, text });
const refused = (message: string, hint = PICK_HINT): Translation => ({ ok: false, message, hint });

function parsed(text: string): Command | null {
  const r = parse(text);
  return r.ok ? r.command : null;
}

function sameTarget(target: { text: string }, name: string): boolean {
  return target.text === name;
}

function card(name: string): Translation {
  if (!name) return refused('Which project or exchange?', 'Type a name or pick one from the suggestions.');
  const c = parsed(name);
  // "project lido dao" is the grammar's own way to narrow the kind: a card either way.
  if (c?.name === 'card') return ok(name);
  // A name that starts with a command word cannot be asked for by text; a search finds it
  // and offers it to choose, which never guesses.
  return ok(`search ${name}`);
}

function flags(name: string): Translation {
  if (!name) return refused('Which project?', 'Type a name or pick one from the suggestions.');
  const text = `flags ${name}`;
  const c = parsed(text);
  return c?.name === 'flags' && sameTarget(c.target, name) ? ok(text) : refused(`“${name}” cannot be looked up as typed.`);
}

function chart(name: string, range: string, kind: string): Translation {
  if (!name) return refused('Which project or exchange should I chart?', 'Type a name or pick one from the suggestions.');
  const wantRange = range || '90d';
  const text = ['chart', name, wantRange, kind].filter(Boolean).join(' ');
  const c = parsed(text);
  if (c?.name === 'chart' && sameTarget(c.target, name) && c.range === wantRange && (c.chart ?? '') === kind) return ok(text);
  return refused(`“${name}” ends in a word the chart command reads as a range or chart kind.`);
}

function compare(names: string[]): Translation {
  // Commas separate names in the grammar; inside one name they are only punctuation.
  const cleaned = names.map((n) => normalise(n.replace(/,/g, ' '))).filter(Boolean);
  if (cleaned.length < 2) return refused('Name at least two projects or exchanges to compare.', 'Fill in a and b.');
  const text = `compare ${cleaned.join(', ')}`;
  const c = parsed(text);
  if (c?.name === 'compare' && c.targets.length === cleaned.length && c.targets.every((t, i) => sameTarget(t, cleaned[i]!))) return ok(text);
  const odd = cleaned.find((n) => /\bvs\.?\b/i.test(n)) ?? cleaned.join(', ');
  return refused(`“${odd}” cannot be compared as typed.`);
}

function polText(sub: string | null, o: SlashInput['options']): Translation {
  switch (sub) {
    case 'card':
      return card(str(o, 'name'));
    case 'flags':
      return flags(str(o, 'name'));
    case 'chart':
      return chart(str(o, 'name'), str(o, 'range'), str(o, 'kind'));
    case 'compare':
      return compare(['a', 'b', 'c', 'd', 'e'].map((k) => str(o, k)));
    case 'top':
      return ok(`top ${str(o, 'list') || 'exchanges'}`);
    case 'search': {
      const text = str(o, 'text');
      return text ? ok(`search ${text}`) : refused('What should I search for?', 'Type part of a name, ticker or slug.');
    }
    case 'trending':
    case 'index':
    case 'health':
    case 'help':
      return ok(sub);
    default:
      return ok('help');
  }
}

/** A cron expression goes in quotes in the grammar; quotes inside it would end it early. */
function cronArg(cron: string): string {
  return `"${cron.replace(/["“”]/g, '')}"`;
}

function digestText(sub: string | null, o: SlashInput['options']): Translation {
  switch (sub) {
    case 'add': {
      const names = str(o, 'names');
      if (!names) return refused('Which projects and exchanges should the digest watch?', 'Separate names with commas.');
      const cron = str(o, 'cron');
      const schedule = cron ? cronArg(cron) : str(o, 'schedule');
      const at = str(o, 'at');
      const tz = str(o, 'tz');
      return ok(['digest add', names, schedule, at && `at ${at}`, tz && `tz ${tz}`].filter(Boolean).join(' '));
    }
    case 'list':
      return ok('digest list');
    case 'remove':
    case 'pause':
    case 'resume':
    case 'preview': {
      const id = str(o, 'id');
      if (!id || /\s/.test(id)) return refused('Which digest? Give its id.', 'See /pol-digest list.');
      return ok(`digest ${sub} ${id}`);
    }
    default:
      return ok('digest list');
  }
}

export function toCommandText(input: SlashInput): Translation {
  if (input.command === POL) return polText(input.subcommand, input.options);
  if (input.command === POL_DIGEST) return digestText(input.subcommand, input.options);
  return refused(`Unknown command /${input.command}.`, 'Try /pol help.');
}
