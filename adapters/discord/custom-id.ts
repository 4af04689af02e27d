import type { CommandRef } from '../../src/reply/model.js';
import type { Args, Invocation } from '../../commands/core/index.js';

/**
 * A command as a component's custom id or select value: `chart?name=project%3Abitcoin&range=365d`.
 * It is the invocation itself, decoded straight back into arguments, never command text to parse.
 * Discord holds 100 characters; longer ones are kept on our side under a short key (see client).
 */
export function encodeInvocation(ref: CommandRef): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(ref.args ?? {})) {
    if (Array.isArray(v)) for (const item of v as readonly string[]) params.append(k, item);
    else if (typeof v === 'string' || typeof v === 'number') params.append(k, String(v));
  }
  const query = params.toString();
  return query ? `${ref.command}?${query}` : ref.command;
}

export function decodeInvocation(text: string): Invocation | undefined {
  const m = /^([a-z][a-z0-9-]{0,40})(?:\?(.*))?$/s.exec(text);
  if (!m) return undefined;
  const args: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(m[2] ?? '')) {
    const had = args[k];
    args[k] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v];
  }
  return { command: m[1]!, args: args as Args };
}
