import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../../commands/core/commands.js';
import { Registry } from '../../../commands/core/registry.js';

/** `alert resolve 12 as noise` and `alert stats 7d` as typed: read, written back, and refused with the choices. */

const registry = new Registry(COMMANDS);
const read = (text: string) => registry.grammar.parse(text);
const refusal = (text: string): string => {
  const r = read(text);
  if (r.ok) throw new Error(`accepted ${text}`);
  return r.message;
};

describe('resolving an alert with a reason, as typed', () => {
  it('reads the number and the reason after `as`, in any case, or the reason alone', () => {
    const noise = { ok: true, invocation: { command: 'alert-resolve', args: { id: 12, reason: 'noise' } } };
    expect(read('alert resolve 12 as noise')).toEqual(noise);
    expect(read('alert resolve #12 AS Noise')).toEqual(noise);
    expect(read('alert resolve 12 noise')).toEqual(noise);
    expect(read('alert close 12 as duplicate')).toEqual({
      ok: true,
      invocation: { command: 'alert-resolve', args: { id: 12, reason: 'duplicate' } },
    });
    // No reason: the command asks for one rather than guessing.
    expect(read('alert resolve 12')).toEqual({ ok: true, invocation: { command: 'alert-resolve', args: { id: 12 } } });
  });

  it('writes each reason back the way it reads', () => {
    for (const reason of ['real', 'noise', 'duplicate', 'expected']) {
      const text = registry.text({ command: 'alert-resolve', args: { id: '7', reason } });
      expect(text).toBe(`alert resolve 7 as ${reason}`);
      expect(read(text)).toEqual({ ok: true, invocation: { command: 'alert-resolve', args: { id: 7, reason } } });
    }
    expect(registry.text({ command: 'alert-resolve', args: { id: '7' } })).toBe('alert resolve 7');
  });

  it('refuses a reason that is not one of the four by listing them, and says what is missing', () => {
    expect(refusal('alert resolve 12 as nosie')).toBe("Unknown reason 'nosie': use one of real, noise, duplicate, expected.");
    expect(refusal('alert resolve 12 as false positive')).toBe(
      "Unknown reason 'false positive': use one of real, noise, duplicate, expected.",
    );
    expect(refusal('alert resolve 12 as')).toBe('Resolve as what? Say real, noise, duplicate or expected.');
    expect(refusal('alert resolve twelve as noise')).toBe("'twelve' is not an alert number.");
    expect(refusal('alert resolve')).toBe('Which alert? Give the number on its message.');
  });
});

describe('alert stats, as typed', () => {
  it('reads a window of 7, 30 or 90 days, 30 unless said, and refuses any other', () => {
    expect(read('alert stats')).toEqual({ ok: true, invocation: { command: 'alert-stats', args: { window: '30d' } } });
    expect(read('alert stats 7d')).toEqual({ ok: true, invocation: { command: 'alert-stats', args: { window: '7d' } } });
    expect(read('alert stats 1w')).toEqual({ ok: true, invocation: { command: 'alert-stats', args: { window: '7d' } } });
    expect(refusal('alert stats 14d')).toBe("Unknown window '14d': use 7d or 30d or 90d.");
  });
});
