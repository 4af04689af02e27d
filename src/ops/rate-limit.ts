import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

export interface RateLimitOptions {
  /** Commands one person may run per window. */
  perUser: number;
  /** Commands one channel may see per window. */
  perChannel: number;
  windowSec: number;
}

export const DEFAULT_RATE_LIMITS: RateLimitOptions = { perUser: 10, perChannel: 30, windowSec: 60 };

export type RateDecision = { ok: true } | { ok: false; retryAfterSec: number; scope: 'user' | 'channel' };

/**
 * Per-person and per-channel limits, checked before any upstream call so a busy channel cannot
 * spend the API key's quota. Token-bucket style: a burst up to the limit, then a steady refill.
 */
export class RateLimiter {
  private readonly users: RateLimiterMemory;
  private readonly channels: RateLimiterMemory;

  constructor(options: RateLimitOptions = DEFAULT_RATE_LIMITS) {
    this.users = new RateLimiterMemory({ points: options.perUser, duration: options.windowSec });
    this.channels = new RateLimiterMemory({ points: options.perChannel, duration: options.windowSec });
  }

  async check(userKey: string, channelKey: string): Promise<RateDecision> {
    try {
      await this.users.consume(userKey);
    } catch (res) {
      return refused(res, 'user');
    }
    try {
      await this.channels.consume(channelKey);
    } catch (res) {
      // The person's point is returned: the channel, not they, hit the limit.
      await this.users.reward(userKey).catch(() => undefined);
      return refused(res, 'channel');
    }
    return { ok: true };
  }
}

function refused(res: unknown, scope: 'user' | 'channel'): RateDecision {
  if (res instanceof RateLimiterRes) return { ok: false, retryAfterSec: Math.max(1, Math.ceil(res.msBeforeNext / 1000)), scope };
  throw res;
}
