import { Writable } from 'node:stream';
import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

/** Structured fields that carry secrets wherever they appear (one level deep, as pino's redaction allows). */
const REDACT_PATHS = [
  'apiKey',
  'token',
  'botToken',
  'appToken',
  'signingSecret',
  'secret',
  'password',
  'authorization',
  'headers["x-api-key"]',
  'headers.authorization',
  'headers["x-slack-signature"]',
  '*.apiKey',
  '*.token',
  '*.botToken',
  '*.appToken',
  '*.signingSecret',
  '*.secret',
  '*.password',
  '*.authorization',
  '*.headers["x-api-key"]',
  '*.headers.authorization',
  '*.headers["x-slack-signature"]',
  'req.headers["x-api-key"]',
  'req.headers.authorization',
];

const MASK = '[redacted]';

export type LogLineTap = (line: string) => void;

const taps = new Set<LogLineTap>();

/**
 * Shows every line any logger writes, exactly as it reaches the destination (after scrubbing).
 * The test suite checks all of them for secrets, whatever destination each test gave its logger.
 * Returns the function that removes the tap.
 */
export function onLogLine(tap: LogLineTap): () => void {
  taps.add(tap);
  return () => {
    taps.delete(tap);
  };
}

/**
 * Path redaction misses secrets embedded in free text (an error message quoting a URL, a library's
 * debug line). The scrubbing stream is the last line of defence: known secret values never reach output.
 */
export class ScrubbingStream extends Writable {
  private secrets: string[];

  constructor(
    private readonly target: DestinationStream | NodeJS.WritableStream,
    secrets: readonly string[],
  ) {
    super();
    this.secrets = [...new Set(secrets.filter((s) => s.length >= 4))].sort((a, b) => b.length - a.length);
  }

  addSecrets(secrets: readonly string[]): void {
    this.secrets = [...new Set([...this.secrets, ...secrets.filter((s) => s.length >= 4)])].sort((a, b) => b.length - a.length);
  }

  scrub(line: string): string {
    let out = line;
    for (const s of this.secrets) if (out.includes(s)) out = out.split(s).join(MASK);
    return out;
  }

  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    const line = this.scrub(chunk.toString());
    for (const tap of taps) tap(line);
    this.target.write(line);
    done();
  }
}

export interface LoggerOptions {
  level?: string;
  secrets?: readonly string[];
  destination?: DestinationStream | NodeJS.WritableStream;
}

export type AppLogger = Logger & { scrubber: ScrubbingStream };

export function createLogger(options: LoggerOptions = {}): AppLogger {
  const scrubber = new ScrubbingStream(options.destination ?? process.stdout, options.secrets ?? []);
  const logger = pino(
    {
      level: options.level ?? 'info',
      base: { app: 'polbot' },
      redact: { paths: REDACT_PATHS, censor: MASK },
      serializers: { err: pino.stdSerializers.err },
    },
    scrubber,
  );
  return Object.assign(logger, { scrubber });
}
