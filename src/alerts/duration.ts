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
