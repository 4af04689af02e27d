import { CONDITION_GRAMMAR } from '../src/alerts/condition.js';
import { groupIntro } from './kit/group.js';

export default groupIntro({
  group: 'alert',
  order: 50,
  aliases: [['alerts']],
  summary: 'Alerts for this channel when a watched name crosses a line (add, list, remove, pause, resume, test, stats, catchup)',
  verbs: ['add', 'list', 'remove', 'pause', 'resume', 'test', 'stats', 'catchup'],
  title: 'Alerts',
  text: `An alert rule watches names for this channel and posts one message when a line is crossed, with buttons to acknowledge and snooze it and a menu to resolve it, saying why; further crossings go in its thread, and it closes by itself when the line is no longer crossed. Conditions: ${CONDITION_GRAMMAR}.`,
});
