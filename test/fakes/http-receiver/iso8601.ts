// A date and a time, seconds and fraction optional, zone optional (`Z`, `+02:00` or `+0200`, the
// form PagerDuty's own examples use).
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** Whether `text` is an ISO 8601 date-time naming a real instant (no 31 February, no hour 25). */
export function isIso8601(text: string): boolean {
  const m = ISO_8601.exec(text);
  if (!m) return false;
  const [, year, month, day, hour, minute, second = '00'] = m;
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  return (
    date.getUTCFullYear() === Number(year) &&
    date.getUTCMonth() === Number(month) - 1 &&
    date.getUTCDate() === Number(day) &&
    Number(hour) < 24 &&
    Number(minute) < 60 &&
    Number(second) < 60
  );
}
