import { type Checked, isUnreadable } from '../api/domain.js';
import * as fmt from './format.js';
import type { Field } from './model.js';

/**
 * Social-fraud signals as fields a person reads: a label for every key (the ones the upstream is
 * known to send, and words made from any other key, never the key itself), and each value in its
 * unit. The tool document names the field `social` and leaves its keys open, so unknown keys are
 * expected and shown rather than dropped.
 */

const LABELS: Record<string, string> = {
  twitterFollowers: 'X/Twitter followers',
  twitterBotFollowersPct: 'Bot followers',
  telegramMembers: 'Telegram members',
  telegramBotMembersPct: 'Bot Telegram members',
  websiteAgeDays: 'Website age',
  websiteTrafficTrend: 'Website traffic',
  searchTrendScore: 'Search interest',
  fakeEngagementScore: 'Fake-engagement score',
  suspiciousFollowerShare: 'Suspicious followers',
};

/** `suspiciousFollowerShare` -> "Suspicious follower share"; snake_case too. */
export function labelOf(key: string): string {
  if (LABELS[key]) return LABELS[key];
  const words = key
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .trim()
    .toLowerCase();
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : key;
}

function valueText(key: string, value: Checked<number> | string | boolean): string {
  if (typeof value === 'boolean') return fmt.yesNo(value);
  if (isUnreadable(value)) return fmt.count(value);
  if (typeof value === 'string') return fmt.oneLine(value, 100);
  if (/(pct|percent)$/i.test(key)) return fmt.percent(value);
  // A share is a fraction of one; shown as a percent like every share.
  if (/(share|ratio|fraction)$/i.test(key)) return fmt.share(value);
  if (/days$/i.test(key)) return `${fmt.count(value)} days`;
  if (key === 'searchTrendScore') return `${fmt.score(value)} / 100`;
  if (/score$/i.test(key)) return fmt.score(value);
  return Number.isInteger(value) ? fmt.count(value) : fmt.decimal(value);
}

export function socialFields(metrics: Readonly<Record<string, Checked<number> | string | boolean>>): Field[] {
  return Object.entries(metrics).map(([key, value]) => ({ label: labelOf(key), value: valueText(key, value) }));
}
