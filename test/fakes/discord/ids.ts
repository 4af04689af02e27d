import { randomBytes } from 'node:crypto';

// Discord epoch (2015-01-01); ids built from it look and sort like real snowflakes,
// which matters because @discordjs/rest only treats 17-19 digit ids as major parameters
// when it buckets rate limits.
const DISCORD_EPOCH = 1_420_070_400_000n;

let increment = 0n;

export function snowflake(at: number = Date.now()): string {
  increment = (increment + 1n) & 0xfffn;
  return (((BigInt(at) - DISCORD_EPOCH) << 22n) | (1n << 17n) | increment).toString();
}

export function randomToken(bytes = 48): string {
  return randomBytes(bytes).toString('base64url');
}

export function botToken(applicationId: string): string {
  // Same three dot-separated parts as a real bot token, so code that censors or splits
  // tokens behaves as it would in production.
  return `${Buffer.from(applicationId).toString('base64url')}.${randomToken(4)}.${randomToken(27)}`;
}
