import { alertStepCommand } from './kit/alert-step.js';

export default alertStepCommand({
  verb: 'resolve',
  order: 59,
  aliases: ['close'],
  summary: 'Resolve an alert: it is handled',
  examples: ['alert resolve 12'],
  step: () => ({ kind: 'resolve' }),
});
