/**
 * How loudly a rule's alerts are posted. High is always posted in full (and may escalate), low
 * always as one compact line with its buttons and no chart, normal as the channel's format says
 * (`alert format`), in full where the channel never chose.
 */

export const SEVERITIES = ['high', 'normal', 'low'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const FORMATS = ['compact', 'full'] as const;
export type AlertFormat = (typeof FORMATS)[number];

export const isSeverity = (v: string): v is Severity => (SEVERITIES as readonly string[]).includes(v);

/** The format of one rule's alert in a channel. */
export function formatOf(severity: Severity, channel: AlertFormat | null): AlertFormat {
  if (severity === 'high') return 'full';
  if (severity === 'low') return 'compact';
  return channel ?? 'full';
}

/**
 * A message carrying several incidents is posted in full when any of them would be: a compact line
 * never hides an alert that asked to be seen whole.
 */
export function messageFormat(severities: readonly Severity[], channel: AlertFormat | null): AlertFormat {
  return severities.some((s) => formatOf(s, channel) === 'full') ? 'full' : 'compact';
}

/** What each severity means where alerts are posted, as the commands say it. */
export const SEVERITY_MEANING: Record<Severity, string> = {
  high: 'always posted in full, with its chart',
  normal: "posted as the channel's format says",
  low: 'always posted compact: one line with its buttons',
};

/** PagerDuty's payload severity for each of ours (Events API v2 knows critical, error, warning, info). */
export const PAGERDUTY_SEVERITY: Record<Severity, 'critical' | 'warning' | 'info'> = {
  high: 'critical',
  normal: 'warning',
  low: 'info',
};
