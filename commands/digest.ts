import { groupIntro } from './kit/group.js';

export default groupIntro({
  group: 'digest',
  order: 40,
  summary: 'Scheduled watchlist digests for this channel (add, list, remove, pause, resume, preview)',
  verbs: ['add', 'list', 'remove', 'pause', 'resume', 'preview'],
  title: 'Scheduled watchlist digests',
  text: 'A digest posts a watchlist to this channel on a schedule: PoL now (lower is safer), the change since the previous digest, ratings, and highlights (downgrades, large PoL moves, new red flags).',
});
