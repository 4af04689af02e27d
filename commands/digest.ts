import type { Reply } from '../src/reply/model.js';

/** Scheduled digests are routed here; until they are enabled the person is told so plainly. */
export function digestCommand(): Reply {
  return {
    kind: 'error',
    message: 'Scheduled digests are not enabled yet on this polbot.',
    hint: 'Meanwhile, /pol compare <a>, <b>, ... shows several at once.',
  };
}
