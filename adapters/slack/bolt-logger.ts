import { LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import type { Logger } from '../../src/log.js';

/**
 * Bolt, its Web API client and the Socket Mode client log through this, so their lines reach the
 * application's pino logger (and its secret scrubbing) instead of the console.
 */

const RANK: Record<LogLevel, number> = { [LogLevel.DEBUG]: 0, [LogLevel.INFO]: 1, [LogLevel.WARN]: 2, [LogLevel.ERROR]: 3 };

/** The Bolt level matching a pino level; Bolt has nothing below debug or above error. */
export function boltLevelFor(pinoLevel: string): LogLevel {
  switch (pinoLevel) {
    case 'trace':
    case 'debug':
      return LogLevel.DEBUG;
    case 'info':
      return LogLevel.INFO;
    case 'warn':
      return LogLevel.WARN;
    default:
      return LogLevel.ERROR;
  }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text;
  } catch {
    return String(value);
  }
}

export function boltLogger(log: Logger): BoltLogger {
  const out = log.child({ component: 'slack-sdk' });
  let floor = boltLevelFor(log.level);
  const emit = (level: LogLevel, method: 'debug' | 'info' | 'warn' | 'error', args: unknown[]): void => {
    if (RANK[level] < RANK[floor]) return;
    const err = args.find((a): a is Error => a instanceof Error);
    const text = args
      .filter((a) => a !== err)
      .map(describe)
      .join(' ');
    if (err) out[method]({ err }, text || err.message);
    else out[method](text);
  };
  return {
    debug: (...msg: unknown[]) => emit(LogLevel.DEBUG, 'debug', msg),
    info: (...msg: unknown[]) => emit(LogLevel.INFO, 'info', msg),
    warn: (...msg: unknown[]) => emit(LogLevel.WARN, 'warn', msg),
    error: (...msg: unknown[]) => emit(LogLevel.ERROR, 'error', msg),
    // Bolt sets the level it was given; the pino level still decides what is written.
    setLevel: (level: LogLevel) => {
      floor = level;
    },
    getLevel: () => floor,
    setName: () => undefined,
  };
}
