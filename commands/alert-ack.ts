import { alertStepCommand } from './kit/alert-step.js';

export default alertStepCommand({
  verb: 'ack',
  order: 57,
  aliases: ['acknowledge'],
  summary: 'Acknowledge an alert: say you have it',
  examples: ['alert ack 12'],
  step: () => ({ kind: 'acknowledge' }),
});
