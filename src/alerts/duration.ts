/**
 * An alert rule's durations (how often it is checked, how long it stays quiet) as typed after
 * `every` and `cooldown` and as shown back wherever the rule is listed.
 */

/** 90s, 5m, 1h, 1d -> seconds; undefined for anything else. */
export function durationSec(text: string): number | undefined {
  const m = /^(\d{1,5})\s*(s|sec|m|min|h|hr|d)$/i.exec(text.trim());
  if (!m) return undefined;
  const unit = m[2]!.toLowerCase();
  return Number(m[1]) * (unit.startsWith('s') ? 1 : unit.startsWith('m') ? 60 : unit.startsWith('h') ? 3600 : 86_400);
}

/** Seconds in the largest unit that divides them whole, as typed: 3600 -> 1h. */
export function durationText(sec: number): string {
  if (sec === 0) return 'none';
  if (sec % 86_400 === 0) return `${sec / 86_400}d`;
  if (sec % 3600 === 0) return `${sec / 3600}h`;
  if (sec % 60 === 0) return `${sec / 60}m`;
  return `${sec}s`;
}

/**
 * Quiet times a rule may have after an alert closes. 2h, 12h and 48h are there so that a noisy
 * rule's usual cooldown can be doubled (`alert stats` suggests that) to one that can be typed.
 */
export const COOLDOWN_CHOICES = ['none', '15m', '30m', '1h', '2h', '6h', '12h', '24h', '48h'] as const;

/** A rule's cooldown as it is typed: the choice of those seconds (`48h`, not `2d`). */
export function cooldownWord(sec: number): string {
  return COOLDOWN_CHOICES.find((v) => (durationSec(v) ?? 0) === sec) ?? durationText(sec);
}
