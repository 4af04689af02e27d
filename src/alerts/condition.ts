import { PROJECT_CATEGORIES, EXCHANGE_CATEGORIES, type EntityKind } from '../api/domain.js';
import { RATING_SCALE } from '../api/rules.js';

/**
 * What an alert watches for, as a person writes it after `when`:
 *
 *   pol above 5%            PoL at or over a level (a percent, or a probability such as 0.05)
 *   pol rises by 2pp in 7d  PoL up by some percentage points within a window (default 24 h)
 *   rating below A          a rating worse than A
 *   downgrade               any step down the rating ladder
 *   new red flag            a red flag that was not there at the last check
 *   security below 60       a category quality score (0–100, higher is better) under a level
 *   any change              what a digest would call a change, as it happens
 *   a listed asset is downgraded   on an exchange: a listed asset's PoL up 1 point or more since the last check
 *   a listed asset above 20%       on an exchange: any listed asset at or above a PoL level
 *
 * Thresholds are checked against their domains: nothing here guesses what a number meant.
 */

export type Condition =
  | { kind: 'pol_above'; threshold: number }
  | { kind: 'pol_rises'; by: number; windowSec: number }
  | { kind: 'rating_below'; rating: string }
  | { kind: 'downgrade' }
  | { kind: 'new_red_flag' }
  | { kind: 'category_below'; category: string; score: number }
  | { kind: 'any_change' }
  | { kind: 'listed_downgrade' }
  | { kind: 'listed_above'; threshold: number };

export type ConditionResult = { ok: true; condition: Condition } | { ok: false; message: string };

export const CONDITION_GRAMMAR =
  'pol above 5% · pol rises by 2pp in 7d · rating below A · downgrade · new red flag · <category> below 60 · any change · a listed asset is downgraded · a listed asset above 20%';

/**
 * Listed assets carry a PoL and no rating upstream, so a listed asset is downgraded when its PoL
 * rose by this much (1 percentage point) or more since the last check.
 */
export const LISTED_DOWNGRADE_POINTS = 0.01;

/** Listed assets are published for exchanges only: a rule watching a project could never fire. */
const LISTED_ON_EXCHANGES = 'Listed assets are published for exchanges only; watch a project with pol above 5% or downgrade instead.';

const HOUR = 3600;
const DAY = 24 * HOUR;
const DEFAULT_WINDOW = DAY;
const MIN_WINDOW = HOUR;
const MAX_WINDOW = 30 * DAY;

const NUMBER = /^(\d+(?:\.\d+)?)$/;

function fail(message: string): ConditionResult {
  return { ok: false, message: `${message} Conditions: ${CONDITION_GRAMMAR}.` };
}

/** A PoL level: `5%` is 5 percent, `0.05` the same as a probability; `5` alone could be either and is refused. */
function readPolLevel(raw: string): { ok: true; value: number } | { ok: false; message: string } {
  const percent = /^(\d+(?:\.\d+)?)\s*%$/.exec(raw);
  if (percent) {
    const v = Number(percent[1]) / 100;
    if (!(v > 0 && v < 1)) return { ok: false, message: `A PoL level is between 0% and 100%, not ${raw}.` };
    return { ok: true, value: v };
  }
  const plain = NUMBER.exec(raw);
  if (plain) {
    const v = Number(plain[1]);
    if (v > 0 && v < 1) return { ok: true, value: v };
    return {
      ok: false,
      message: `Write a PoL level as a percent (${raw}%) or as a probability between 0 and 1 (such as 0.05), not ${raw}.`,
    };
  }
  return { ok: false, message: `'${raw.slice(0, 20)}' is not a PoL level: write it as 5% or 0.05.` };
}

/** Percentage points: `2pp`, `2%` or `2` all mean 2 points of PoL. */
function readPoints(raw: string): { ok: true; value: number } | { ok: false; message: string } {
  const m = /^(\d+(?:\.\d+)?)\s*(pp|%|points?)?$/.exec(raw);
  const v = m ? Number(m[1]) : NaN;
  if (!(v > 0 && v < 100))
    return { ok: false, message: `A rise is some percentage points of PoL between 0 and 100, such as 2pp, not '${raw.slice(0, 20)}'.` };
  return { ok: true, value: v / 100 };
}

function readWindow(raw: string | undefined): { ok: true; value: number } | { ok: false; message: string } {
  if (raw === undefined) return { ok: true, value: DEFAULT_WINDOW };
  const m = /^(\d{1,4})\s*(h|hours?|d|days?|w|weeks?)$/.exec(raw);
  if (!m) return { ok: false, message: `'${raw.slice(0, 20)}' is not a window: write 6h, 7d or 2w.` };
  const unit = m[2]!.startsWith('h') ? HOUR : m[2]!.startsWith('d') ? DAY : 7 * DAY;
  const value = Number(m[1]) * unit;
  if (value < MIN_WINDOW || value > MAX_WINDOW) return { ok: false, message: 'A window is from 1 hour to 30 days.' };
  return { ok: true, value };
}

/**
 * Reads a condition for entities of `kinds` (a category must exist for every kind watched: an
 * exchange has no financial score).
 */
export function parseCondition(text: string, kinds: readonly EntityKind[]): ConditionResult {
  const t = text.trim().toLowerCase().replace(/\s+/g, ' ');
  if (!t) return fail('Say when to alert.');
  if (/^(any )?changes?$/.test(t)) return { ok: true, condition: { kind: 'any_change' } };
  if (/^(any )?downgrades?$|^rating (drops|falls|goes down)$/.test(t)) return { ok: true, condition: { kind: 'downgrade' } };
  if (/^(a )?new red ?flags?$|^red ?flags?$/.test(t)) {
    // The service publishes red flags for projects only: on an exchange the rule could never fire.
    if (kinds.includes('exchange')) return fail('Red flags are published for projects only; watch exchanges with another condition.');
    return { ok: true, condition: { kind: 'new_red_flag' } };
  }

  const listed =
    /^(?:an? |any )?listed (?:assets?|tokens?) (?:(?:is |are |gets? |got |was )?downgraded|downgrades?)$|^listed downgrades?$/.test(t)
      ? { ok: true as const, value: { kind: 'listed_downgrade' as const } }
      : listedAbove(t);
  if (listed) {
    if (kinds.includes('project')) return fail(LISTED_ON_EXCHANGES);
    return listed.ok ? { ok: true, condition: listed.value } : fail(listed.message);
  }

  let m = /^pol (?:above|over|>=?|exceeds|at or above) (.+)$/.exec(t);
  if (m) {
    const level = readPolLevel(m[1]!.trim());
    return level.ok ? { ok: true, condition: { kind: 'pol_above', threshold: level.value } } : fail(level.message);
  }
  m = /^pol (?:rises|goes up|increases|jumps) by (\S+(?: ?(?:pp|%|points?))?)(?: (?:in|within|over) (.+))?$/.exec(t);
  if (m) {
    const by = readPoints(m[1]!.replace(/\s+/g, ''));
    if (!by.ok) return fail(by.message);
    const window = readWindow(m[2]?.trim());
    if (!window.ok) return fail(window.message);
    return { ok: true, condition: { kind: 'pol_rises', by: by.value, windowSec: window.value } };
  }
  m = /^rating (?:below|under|worse than|<) (\S+)$/.exec(t);
  if (m) {
    const rating = m[1]!.toUpperCase();
    const at = RATING_SCALE.indexOf(rating as (typeof RATING_SCALE)[number]);
    if (at === -1) return fail(`'${m[1]!.slice(0, 10)}' is not a rating: ratings run ${RATING_SCALE.join(', ')}.`);
    if (at === RATING_SCALE.length - 1) return fail('Nothing is rated below D.');
    return { ok: true, condition: { kind: 'rating_below', rating } };
  }
  m = /^([a-z_ ]+?) (?:score )?(?:below|under|<) (\S+)$/.exec(t);
  if (m) {
    const category = m[1]!.replace(/ (score|quality)$/, '').replace(/ /g, '_');
    const known = categoriesFor(kinds);
    if (!known.includes(category)) {
      return fail(`'${m[1]!.slice(0, 30)}' is not a category of ${kindsText(kinds)}: ${known.join(', ') || 'they share none'}.`);
    }
    const score = Number(m[2]);
    if (!NUMBER.test(m[2]!) || score <= 0 || score > 100)
      return fail(`A quality score runs from 0 to 100 (higher is better), not ${m[2]!.slice(0, 10)}.`);
    return { ok: true, condition: { kind: 'category_below', category, score } };
  }
  return fail(`'${text.trim().slice(0, 40)}' is not a condition I know.`);
}

/** `a listed asset above 20%`: any listed asset at or over a PoL level; undefined when the text is not of that form. */
function listedAbove(t: string): { ok: true; value: Condition } | { ok: false; message: string } | undefined {
  const m = /^(?:an? |any )?listed (?:assets?|tokens?) (?:is |are )?(?:above|over|>=?|exceeds|at or above) (.+)$/.exec(t);
  if (!m) return undefined;
  const level = readPolLevel(m[1]!.trim());
  return level.ok ? { ok: true, value: { kind: 'listed_above', threshold: level.value } } : level;
}

/** The categories every watched kind has: a rule on a project and an exchange can only use shared ones. */
export function categoriesFor(kinds: readonly EntityKind[]): string[] {
  const lists: string[][] = [...new Set(kinds)].map((k) => (k === 'project' ? [...PROJECT_CATEGORIES] : [...EXCHANGE_CATEGORIES]));
  if (!lists.length) return [...new Set<string>([...PROJECT_CATEGORIES, ...EXCHANGE_CATEGORIES])];
  return lists.reduce((a, b) => a.filter((c) => b.includes(c)));
}

const kindsText = (kinds: readonly EntityKind[]) => {
  const set = [...new Set(kinds)];
  return set.length === 2 ? 'both projects and exchanges' : set[0] === 'exchange' ? 'an exchange' : 'a project';
};

/** A PoL as alerts say it: in percent, two decimals below 1%, one above. */
export const percentText = (p: number) => `${(p * 100).toFixed(p < 0.01 ? 2 : 1)}%`;

function windowText(sec: number): string {
  if (sec % (7 * DAY) === 0) return `${sec / (7 * DAY)} week${sec === 7 * DAY ? '' : 's'}`;
  if (sec % DAY === 0) return `${sec / DAY} day${sec === DAY ? '' : 's'}`;
  return `${sec / HOUR} hour${sec === HOUR ? '' : 's'}`;
}

const title = (s: string) => s.charAt(0).toUpperCase() + s.slice(1).replace(/_/g, ' ');

/** The condition said back in plain words, PoL always in percent, with the direction of each number. */
export function describeCondition(c: Condition): string {
  switch (c.kind) {
    case 'pol_above':
      return `PoL at or above ${percentText(c.threshold)} (lower is safer)`;
    case 'pol_rises':
      return `PoL up by ${(c.by * 100).toFixed(1)} percentage points or more within ${windowText(c.windowSec)}`;
    case 'rating_below': {
      const next = RATING_SCALE[RATING_SCALE.indexOf(c.rating as (typeof RATING_SCALE)[number]) + 1]!;
      return `rating below ${c.rating} (${next} or worse)`;
    }
    case 'downgrade':
      return 'any rating downgrade';
    case 'new_red_flag':
      return 'a new red flag';
    case 'category_below':
      return `${title(c.category)} quality score below ${c.score} (higher is better)`;
    case 'any_change':
      return 'any change in PoL, rating or red flags';
    case 'listed_downgrade':
      return `a listed asset downgraded: its PoL up by ${(LISTED_DOWNGRADE_POINTS * 100).toFixed(0)} percentage point or more since the last check (listed assets carry no rating)`;
    case 'listed_above':
      return `a listed asset at or above ${percentText(c.threshold)} PoL (lower is safer)`;
  }
}

/** Whole conditions to offer as a person types one (Discord's autocomplete): the grammar's forms, then the categories. */
export function conditionSuggestions(typed: string, limit = 25): string[] {
  const forms = [
    'pol above 5%',
    'pol above 10%',
    'pol rises by 2pp in 7d',
    'pol rises by 1pp in 24h',
    'rating below B',
    'rating below C',
    'downgrade',
    'new red flag',
    'any change',
    'a listed asset is downgraded',
    'a listed asset above 20%',
    ...categoriesFor([]).map((c) => `${c.replace(/_/g, ' ')} below 60`),
  ];
  const t = typed.trim().toLowerCase();
  const matches = t ? forms.filter((f) => f.startsWith(t) || f.includes(t)) : forms;
  // What they typed comes first when it already reads as a condition of its own.
  const own = t && !matches.includes(t) && parseCondition(t, []).ok ? [t] : [];
  return [...own, ...matches].slice(0, limit);
}
