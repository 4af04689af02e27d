import { describe, expect, it } from 'vitest';
import * as fmt from '../../../src/reply/format.js';
import { socialFields } from '../../../src/reply/social.js';

describe('one number formatter', () => {
  it('keeps small prices in plain notation with their significant digits, and cents from a dollar up', () => {
    expect(fmt.price(0.00000042)).toBe('$0.00000042');
    expect(fmt.price(0.0001)).toBe('$0.0001');
    expect(fmt.price(0.123456)).toBe('$0.123');
    expect(fmt.price(0.5)).toBe('$0.5');
    expect(fmt.price(1)).toBe('$1.00');
    expect(fmt.price(64123.456)).toBe('$64,123.46');
    expect(fmt.price(0)).toBe('$0');
    expect(fmt.price(Number.NaN)).toBe('unreadable (not a number)');
    expect(fmt.price(null)).toBe('—');
  });

  it('groups large money compactly, rounding across units', () => {
    expect(fmt.usd(1.2e9)).toBe('$1.2B');
    expect(fmt.usd(1.234e9)).toBe('$1.23B');
    expect(fmt.usd(12.34e6)).toBe('$12.3M');
    expect(fmt.usd(123_400)).toBe('$123K');
    expect(fmt.usd(999_999)).toBe('$1M');
    expect(fmt.usd(1.3e12)).toBe('$1.3T');
    expect(fmt.usd(950)).toBe('$950');
    expect(fmt.usd(0.42)).toBe('$0.42');
    expect(fmt.usd(-2.5e6)).toBe('−$2.5M');
    expect(fmt.usd(Number.POSITIVE_INFINITY)).toBe('unreadable (out of range)');
  });

  it('never shows a nonzero value as zero', () => {
    expect(fmt.percent(0.04)).toBe('<0.1%');
    expect(fmt.percent(-0.04)).toBe('>−0.1%');
    expect(fmt.percent(0)).toBe('0.0%');
    expect(fmt.pol(0.00000001)).toBe('<0.001%');
    expect(fmt.pol(0.0009)).toBe('0.090%');
    expect(fmt.polChange(0.0000001)).toBe('+<0.001 pp');
    expect(fmt.polChange(0)).toBe('±0 pp');
    expect(fmt.score(0.04)).toBe('0.04');
    expect(fmt.score(0)).toBe('0');
    expect(fmt.count(0.4)).toBe('0.4');
    expect(fmt.count(1234.4)).toBe('1,234');
  });

  it('shows shares as percent', () => {
    expect(fmt.share(0.64)).toBe('64%');
    expect(fmt.share(0.1234)).toBe('12.3%');
    expect(fmt.share(1)).toBe('100%');
    expect(fmt.share(0.00001)).toBe('0.001%');
  });
});

describe('social-fraud signals in words', () => {
  it('labels every key for a person and shows each value in its unit', () => {
    const fields = socialFields({
      suspiciousFollowerShare: 0.64,
      twitterBotFollowersPct: 24.3,
      websiteAgeDays: 1378,
      telegram_bot_ratio: 0.05,
      someNewThing: 12,
      isVerified: true,
      websiteTrafficTrend: 'stable',
    });
    expect(fields).toEqual([
      { label: 'Suspicious followers', value: '64%' },
      { label: 'Bot followers', value: '24.3%' },
      { label: 'Website age', value: '1,378 days' },
      { label: 'Telegram bot ratio', value: '5%' },
      { label: 'Some new thing', value: '12' },
      { label: 'Is verified', value: 'yes' },
      { label: 'Website traffic', value: 'stable' },
    ]);
  });
});
