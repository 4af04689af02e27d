import { weekdayNumber, WEEKDAYS, type ScheduleSpec } from '../../src/digest/schedule.js';

/**
 * `digest add` arguments: names first, then the schedule in any order:
 *   daily | weekdays | weekly [on] [<day>] | "<cron>"   at HH:MM   tz <Area/City>
 * Names are separated by commas when any are multi-word ("lido dao, uniswap"), otherwise one word
 * each; a quoted name stays whole. A cron expression must be quoted: its fields look like names.
 */
export interface AddArgs {
  names: string[];
  spec: ScheduleSpec;
  /** The schedule as the person gave it, normalised; re-appended when a choice rebuilds the command. */
  scheduleText: string;
}

interface Token {
  text: string;
  quoted: boolean;
}

const KEYWORDS = new Set(['daily', 'weekdays', 'weekly', 'at', 'tz', 'timezone']);
const CRON_FIELD = /^[\d*/,?LW#A-Za-z-]+$/;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const re = /"([^"]*)"?|“([^”]*)”?|(\S+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[3] !== undefined) tokens.push({ text: m[3], quoted: false });
    else tokens.push({ text: (m[1] ?? m[2] ?? '').trim(), quoted: true });
  }
  return tokens;
}

/** Quoted names never consist of numbers and stars; a malformed expression still reads as one, for a precise error. */
function looksLikeCron(text: string): boolean {
  const fields = text.trim().split(/\s+/);
  if (fields.length >= 2 && fields.every((f) => /^[\d*/,?-]+$/.test(f))) return true;
  return fields.length >= 5 && fields.length <= 7 && fields.every((f) => CRON_FIELD.test(f)) && fields.some((f) => /[\d*]/.test(f));
}

const isOption = (t: Token) => (t.quoted ? looksLikeCron(t.text) : KEYWORDS.has(t.text.toLowerCase()));

export function parseAddArgs(text: string): { ok: true; value: AddArgs } | { ok: false; message: string } {
  const tokens = tokenize(text);
  const start = tokens.findIndex(isOption);
  const nameTokens = start === -1 ? tokens : tokens.slice(0, start);
  const optionTokens = start === -1 ? [] : tokens.slice(start);

  if (
    nameTokens.some((t) => !t.quoted && t.text.includes('*')) ||
    nameTokens.filter((t) => !t.quoted && /^[\d*/,-]+$/.test(t.text)).length >= 2
  ) {
    return { ok: false, message: 'Put the cron expression in double quotes, for example "0 9 * * 1-5".' };
  }
  const names = (
    nameTokens.some((t) => !t.quoted && t.text.includes(','))
      ? nameTokens
          .map((t) => t.text)
          .join(' ')
          .split(',')
      : nameTokens.map((t) => t.text)
  )
    .map((n) => n.trim())
    .filter(Boolean);

  let kind: 'daily' | 'weekdays' | 'weekly' | 'cron' | undefined;
  let cron: string | undefined;
  let day: string | undefined;
  let time: string | undefined;
  let timezone: string | undefined;
  const twice = (what: string) => ({ ok: false as const, message: `The ${what} is given twice; give it once.` });

  for (let i = 0; i < optionTokens.length; i++) {
    const t = optionTokens[i]!;
    const word = t.quoted ? '' : t.text.toLowerCase();
    const next = optionTokens[i + 1];
    if (t.quoted) {
      if (!looksLikeCron(t.text))
        return { ok: false, message: `Unexpected “${t.text.slice(0, 40)}” after the schedule: names come first.` };
      if (kind) return twice('schedule');
      kind = 'cron';
      cron = t.text;
    } else if (word === 'daily' || word === 'weekdays') {
      if (kind) return twice('schedule');
      kind = word;
    } else if (word === 'weekly') {
      if (kind) return twice('schedule');
      kind = 'weekly';
      let j = i + 1;
      if (optionTokens[j] && !optionTokens[j]!.quoted && optionTokens[j]!.text.toLowerCase() === 'on') j++;
      const candidate = optionTokens[j];
      if (candidate && !candidate.quoted && weekdayNumber(candidate.text) !== undefined) {
        day = candidate.text;
        i = j;
      } else if (j > i + 1) {
        return { ok: false, message: `Which day? Use weekly on <day>, for example weekly on ${WEEKDAYS[1]}.` };
      }
    } else if (word === 'at') {
      if (!next || next.quoted) return { ok: false, message: 'What time? Use at HH:MM, for example at 09:00.' };
      if (time) return twice('time');
      time = next.text;
      i++;
    } else if (word === 'tz' || word === 'timezone') {
      if (!next || next.quoted) return { ok: false, message: 'Which timezone? Use tz <Area/City>, for example tz Europe/Berlin.' };
      if (timezone) return twice('timezone');
      timezone = next.text;
      i++;
    } else {
      return {
        ok: false,
        message: `Unexpected '${t.text.slice(0, 40)}' in the schedule: names come first, then daily, weekdays, weekly or a quoted cron expression, at HH:MM and tz <Area/City>.`,
      };
    }
  }

  if (kind === 'cron' && time)
    return { ok: false, message: `'at' goes with daily, weekdays or weekly; with a cron expression, put the time in the expression.` };
  const tz = timezone ? { timezone } : {};
  const spec: ScheduleSpec =
    kind === 'cron'
      ? { kind: 'cron', cron: cron!, ...tz }
      : kind === 'weekly'
        ? { kind: 'weekly', ...(day ? { day } : {}), ...(time ? { time } : {}), ...tz }
        : { kind: kind ?? 'daily', ...(time ? { time } : {}), ...tz };

  const scheduleText = [
    kind === 'cron' ? `"${cron}"` : kind === 'weekly' ? `weekly${day ? ` ${day.toLowerCase()}` : ''}` : (kind ?? ''),
    time ? `at ${time}` : '',
    timezone ? `tz ${timezone}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return { ok: true, value: { names, spec, scheduleText } };
}
