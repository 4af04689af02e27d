import { durationSec, durationText } from './duration.js';

/**
 * Escalation: an incident still unacknowledged a while after its message went out calls on a group
 * of people (a user group, a role) in the message's thread, and may call on another after that.
 * Typed after `escalate` on a rule: `after 15m to @risk-oncall then after 1h to @head-of-risk`.
 */

/** A group of people as the platform knows it: its id there, and the words it goes by (`@risk-oncall`). */
export interface Group {
  id: string;
  label: string;
}

/** One step of a rule's escalation; its wait counts from the step before it (the first, from the message). */
export interface EscalationStep {
  afterSec: number;
  group: Group;
}

export const ESCALATION_LIMITS = { maxSteps: 3, minAfterSec: 300, maxAfterSec: 86_400 } as const;

export const ESCALATION_GRAMMAR = 'after 15m to @group [then after 1h to @group]';

/** A step as typed: its wait, and the group's mention as it arrived (a handle, or the platform's own markup). */
export interface TypedStep {
  afterSec: number;
  mention: string;
}

export type ReadEscalation = { ok: true; steps: TypedStep[] } | { ok: false; message: string };

const STEP = /^(?:after\s+)?(\S+)\s+to\s+(\S+)$/i;

/**
 * Reads what follows `escalate`: at most three steps, each waiting 5 minutes to 24 hours. The
 * groups are not looked up here; where they are depends on the platform.
 */
export function readEscalation(text: string): ReadEscalation {
  const typed = text.trim();
  if (!typed) return { ok: false, message: `Say how to escalate: escalate ${ESCALATION_GRAMMAR}.` };
  const parts = typed.split(/\s+then\s+/i);
  if (parts.length > ESCALATION_LIMITS.maxSteps)
    return {
      ok: false,
      message: `An escalation has at most ${ESCALATION_LIMITS.maxSteps} steps; this one has ${parts.length}.`,
    };
  const steps: TypedStep[] = [];
  for (const [i, part] of parts.entries()) {
    const m = STEP.exec(part.trim());
    // Said by its place, not echoed: a mention arrives in the platform's own markup.
    if (!m) return { ok: false, message: `Cannot read step ${i + 1} of the escalation: write it as ${ESCALATION_GRAMMAR}.` };
    const afterSec = durationSec(m[1]!);
    if (afterSec === undefined)
      return { ok: false, message: `Cannot read the wait '${clipped(m[1]!)}' of an escalation step: write it as 15m, 1h or 24h.` };
    if (afterSec < ESCALATION_LIMITS.minAfterSec || afterSec > ESCALATION_LIMITS.maxAfterSec)
      return {
        ok: false,
        message: `An escalation step waits between ${spanText(ESCALATION_LIMITS.minAfterSec)} and ${spanText(ESCALATION_LIMITS.maxAfterSec)}, not ${clipped(m[1]!)}.`,
      };
    steps.push({ afterSec, mention: m[2]! });
  }
  return { ok: true, steps };
}

const clipped = (text: string): string => (text.length > 40 ? `${text.slice(0, 40)}…` : text);

/** 900 -> "15 minutes", 4500 -> "1 hour 15 minutes", 86400 -> "24 hours". */
export function spanText(sec: number): string {
  const hours = Math.floor(sec / 3600);
  const minutes = Math.round((sec % 3600) / 60);
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return [...(hours ? [unit(hours, 'hour')] : []), ...(minutes || !hours ? [unit(minutes, 'minute')] : [])].join(' ');
}

/** A rule's escalation in a few words, for its list: `after 15m @risk-oncall, then after 1h @head-of-risk`. */
export function escalationText(steps: readonly EscalationStep[]): string {
  return steps.map((s) => `after ${durationText(s.afterSec)} ${s.group.label}`).join(', then ');
}

/**
 * What a rule's escalation will do, in a sentence: "An alert still unacknowledged after 15 minutes
 * calls on @risk-oncall in its thread, then @head-of-risk 1 hour later."
 */
export function escalationSentence(steps: readonly EscalationStep[]): string {
  const [first, ...rest] = steps;
  if (!first) return '';
  const later = rest.map((s) => `, then ${s.group.label} ${spanText(s.afterSec)} later`).join('');
  return `An alert still unacknowledged after ${spanText(first.afterSec)} calls on ${first.group.label} in its thread${later}.`;
}
