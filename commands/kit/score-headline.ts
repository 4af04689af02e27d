import { isUnreadable, type QualityScore } from '../../src/api/domain.js';
import { unreadableText } from '../../src/api/rules.js';
import type { Settled } from '../../src/api/settle.js';
import type { Fetched } from '../../src/api/source.js';
import * as fmt from '../../src/reply/format.js';
import type { Headline } from '../../src/reply/model.js';
import { partMissing } from './card.js';

/** A section's category quality score as its headline: higher is better, and never called the PoL. */
export function scoreHeadline(title: string, score: Settled<Fetched<QualityScore>> | undefined): Headline {
  const label = `${title} quality score`;
  if (!score)
    return {
      label,
      value: 'unavailable',
      direction: 'higher is better',
      change: { text: 'The quality score needs a source that has it.', trend: 'flat' },
    };
  if (!score.ok)
    return {
      label,
      value: 'unavailable',
      direction: 'higher is better',
      change: { text: `The quality score ${partMissing(score.error)}.`, trend: 'flat' },
    };
  const s = score.value.data;
  // The rating stands next to the value; the line under it says how sure the score is and what it is not.
  const confidence =
    s.confidence === undefined
      ? ''
      : isUnreadable(s.confidence)
        ? `confidence ${unreadableText(s.confidence)}. `
        : `${s.confidence} confidence. `;
  return {
    label,
    value: `${fmt.score(s.score)} / 100`,
    ...(isUnreadable(s.rating) ? {} : { rating: s.rating }),
    direction: 'higher is better',
    change: { text: `${confidence}A quality score, not the Probability of Loss.`, trend: 'flat' },
  };
}
