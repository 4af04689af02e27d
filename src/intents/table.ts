import type { CommandRef } from '../reply/model.js';

/**
 * Plain questions polbot understands, as data: each family of phrases maps onto one command, the
 * names it captures passed on as typed, so they go through the same refusal-first resolution as
 * the slash command (an ambiguous name asks, an unknown one is said to be unknown). Matching is
 * deterministic: patterns, no language model and no network. A question matches the first family
 * whose pattern matches it whole, after `normalise` (src/intents/understand.ts).
 *
 * Names are captured by `(?<name>…)`, or `(?<a>…)` and `(?<b>…)` for two; `list` and `when` are
 * words of the question itself.
 */

export interface IntentFamily {
  /** What the family asks, for tests and for picking examples close to an unmatched question. */
  family: string;
  /** Words that say a question is about this family, even when no pattern matches it. */
  keywords: readonly string[];
  patterns: readonly RegExp[];
  command(groups: Readonly<Record<string, string>>): CommandRef;
  /** A question of the family, with `{name}` where a name goes: offered as a runnable example. */
  example: string;
}

/** A name: at least one character that is not only punctuation, up to 60 characters. */
const N = '(?<name>[^?!]{1,60}?)';
const A = '(?<a>[^?!]{1,60}?)';
const B = '(?<b>[^?!]{1,60}?)';
const POSSESSIVE = "(?:'s|s')?";

const WINDOWS: Readonly<Record<string, string>> = {
  week: '7d',
  month: '30d',
  quarter: '90d',
  year: '365d',
};

export const INTENTS: readonly IntentFamily[] = [
  {
    family: 'compare',
    keywords: ['compare', 'vs', 'versus', 'safer', 'better', 'or'],
    patterns: [
      new RegExp(`^compare ${A} (?:and|with|to|against|vs\\.?|versus) ${B}$`),
      new RegExp(`^which is (?:safer|riskier|better|less risky)(?:,|:)? ${A} or ${B}$`),
      new RegExp(`^${A} (?:vs\\.?|versus) ${B}$`),
      new RegExp(`^is ${A} (?:safer|riskier|better) than ${B}$`),
    ],
    command: (g) => ({ command: 'compare', args: { names: [g.a!, g.b!] } }),
    example: 'compare binance and kraken',
  },
  {
    family: 'why',
    keywords: ['why', 'reason', 'explain'],
    patterns: [
      new RegExp(`^why (?:is|are) ${N}${POSSESSIVE} (?:pol|risk|rating) (?:so |that )?(?:high|low|bad)$`),
      new RegExp(`^why (?:is|are) ${N} (?:so |that |this )?(?:risky|safe|high|low|bad|good|rated (?:so )?(?:low|high|badly|poorly))$`),
      new RegExp(`^explain ${N}${POSSESSIVE} (?:pol|risk|rating)$`),
    ],
    command: (g) => ({ command: 'why', args: { name: g.name! } }),
    example: 'why is {name} so risky',
  },
  {
    family: 'reserves',
    keywords: ['reserves', 'reserve', 'solvency', 'solvent', 'liabilities', 'proof'],
    patterns: [
      new RegExp(
        `^(?:show(?: me)?|what are|what's|whats|how are) (?:the )?${N}${POSSESSIVE} (?:reserves|proof of reserves|solvency|liabilities)$`,
      ),
      new RegExp(`^(?:reserves|proof of reserves|solvency) (?:of|for|at) ${N}$`),
      new RegExp(`^is ${N} solvent$`),
      new RegExp(`^${N}${POSSESSIVE} (?:reserves|proof of reserves|solvency)$`),
    ],
    command: (g) => ({ command: 'section', args: { name: g.name!, section: 'solvency' } }),
    example: "show me {name}'s reserves",
  },
  {
    family: 'flags',
    keywords: ['red', 'flag', 'flags', 'warning', 'warnings', 'scam'],
    patterns: [
      new RegExp(`^(?:any|are there(?: any)?|show(?: me)?(?: the)?) red ?flags? (?:on|for|about|in|with) ${N}$`),
      new RegExp(`^(?:does|has) ${N} (?:have|got) (?:any )?red ?flags?$`),
      new RegExp(`^${N}${POSSESSIVE} red ?flags?$`),
      new RegExp(`^red ?flags? (?:on|for|of) ${N}$`),
    ],
    command: (g) => ({ command: 'flags', args: { name: g.name! } }),
    example: 'any red flags on {name}?',
  },
  {
    family: 'changed',
    keywords: ['changed', 'change', 'changes', 'moved', 'lately', 'recently', 'month', 'week'],
    patterns: [
      new RegExp(
        `^what(?:'s| has|s)? changed (?:for|with|on|at|about) ${N}(?: (?:this|in the last|over the last|the last|in the past|over the past|past|last) (?<when>week|month|quarter|year)| lately| recently)?$`,
      ),
      new RegExp(
        `^how (?:has|did) ${N} (?:change|move|changed|moved)(?: (?:this|in the last|over the last|last) (?<when>week|month|quarter|year))?$`,
      ),
    ],
    command: (g) => ({ command: 'chart', args: { name: g.name!, range: WINDOWS[g.when ?? 'month'] ?? '30d', kind: 'categories' } }),
    example: 'what changed for {name} this month',
  },
  {
    family: 'top',
    keywords: ['top', 'best', 'safest', 'ranking', 'rankings', 'list', 'exchanges', 'projects'],
    patterns: [
      /^(?:(?:what|which) are )?(?:the )?(?:top|best|safest|lowest risk|least risky)(?: rated| ranked)? (?<list>exchanges|projects)$/,
      /^(?:show(?: me)?|list) (?:the )?(?:top|best|safest)(?: rated)? (?<list>exchanges|projects)$/,
    ],
    command: (g) => ({ command: 'top', args: { list: g.list! } }),
    example: 'top exchanges',
  },
  {
    family: 'card',
    keywords: ['safe', 'risky', 'risk', 'pol', 'rating', 'score', 'legit', 'trust'],
    patterns: [
      new RegExp(
        `^(?:is|are) ${N} (?:safe|risky|legit|ok|okay|trustworthy|reliable|a scam)(?: to use| to hold| to trade on| to keep funds on)?$`,
      ),
      new RegExp(`^how (?:safe|risky|legit|trustworthy) is ${N}$`),
      new RegExp(
        `^(?:what(?:'s| is)|whats|show(?: me)?|tell me|give me|get) (?:the )?(?:pol|probability of loss|risk|risk score|rating|score|score card|card) (?:of|for|on) ${N}$`,
      ),
      new RegExp(`^(?:what(?:'s| is)|whats) ${N}${POSSESSIVE} (?:pol|probability of loss|risk|rating|score)$`),
      new RegExp(`^(?:check|look up|lookup) ${N}$`),
    ],
    command: (g) => ({ command: 'card', args: { name: g.name! } }),
    example: 'is {name} safe?',
  },
];
