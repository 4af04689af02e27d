import { alertStepCommand } from './kit/alert-step.js';
import { str } from './kit/spec.js';

const HOURS: Record<string, number> = { '1h': 1, '4h': 4, '24h': 24 };

export default alertStepCommand({
  verb: 'snooze',
  order: 58,
  summary: 'Snooze an alert: no thread replies until then',
  examples: ['alert snooze 12 24h'],
  extra: {
    type: 'choice',
    name: 'for',
    description: 'How long (default 1h)',
    choices: Object.keys(HOURS).map((value) => ({ value })),
    aliases: { '1d': '24h', '60m': '1h' },
    default: '1h',
  },
  step: (args, now) => ({ kind: 'snooze', untilMs: now + (HOURS[str(args, 'for')] ?? 1) * 3_600_000 }),
});
