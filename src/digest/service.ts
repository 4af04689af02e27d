import type { PostDeps } from '../delivery/deps.js';
import type { Reply } from '../reply/model.js';
import { buildDigest, chartFor, EntityLoader, type ContentOptions } from './content.js';
import { nextSlot } from './schedule.js';
import type { Digest, DigestStore } from './store.js';

export interface DigestLimits {
  /** Names per digest. */
  maxEntities: number;
  /** Digests per channel. */
  maxPerChannel: number;
}

export const DEFAULT_LIMITS: DigestLimits = { maxEntities: 25, maxPerChannel: 10 };

/** What the `digest` commands use: the store, the limits, and a preview built like a delivery. */
export interface DigestService {
  readonly store: DigestStore;
  readonly limits: DigestLimits;
  /**
   * The digest as it would be posted now, compared with the last one delivered. All names in one
   * table (a preview is one reply); it stores nothing, so the next digest's baseline is unchanged.
   */
  preview(digest: Digest, now: number): Promise<Reply>;
}

export function createDigestService(opts: {
  store: DigestStore;
  ctx: PostDeps;
  limits?: Partial<DigestLimits>;
  content?: Partial<ContentOptions>;
}): DigestService {
  const limits = { ...DEFAULT_LIMITS, ...opts.limits };
  return {
    store: opts.store,
    limits,
    async preview(digest, now) {
      const previous = await opts.store.previousDelivered(digest.id, now + 1);
      const content = await buildDigest(
        new EntityLoader(opts.ctx.source),
        {
          digest,
          slot: null,
          previous,
          unsent: 0,
          nextRun: digest.state === 'active' ? nextSlot(digest.cron, digest.timezone, now) : null,
          now,
        },
        { ...opts.content, rowsPerPart: Math.max(limits.maxEntities, digest.entities.length) },
      );
      const first = content.parts[0]!;
      const image = await chartFor(opts.ctx.charts, content.chart);
      return image && first.kind === 'table' ? { ...first, image } : first;
    },
  };
}
