import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../../src/api/errors.js';
import type { McpSource } from '../../../src/api/mcp/source.js';
import { SLUG_PATTERN } from '../../../src/api/rest/paths.js';
import type { RestSource } from '../../../src/api/rest/source.js';
import type { Core } from '../../../commands/core/core.js';
import { COMMANDS } from '../../../commands/core/commands.js';
import { Registry } from '../../../commands/core/registry.js';
import { Resolver } from '../../../src/resolve/resolver.js';
import type { Simulator } from '../../../src/sim/server.js';
import { demoCore, visibleText } from '../../helpers/core.js';
import { startTestSimulator } from '../../helpers/sim.js';
import { cached, mcpSource, restSource } from '../../helpers/sources.js';

/** Text people might type, including the nasty parts: separators, encodings, control and invisible characters. */
const hostileText = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.constantFrom(
    '../health',
    'a/b',
    '%2e%2e',
    '?x=1',
    '#',
    '\u0000',
    '<!channel>',
    '@everyone',
    '[x](http://e.example)',
    '```',
    '\u202E',
    'x'.repeat(10_000),
  ),
  fc
    .array(
      fc.constantFrom(
        'chart',
        'compare',
        'flags',
        'project',
        'exchange',
        'top',
        'bitcoin',
        'shiba',
        ',',
        '"',
        '365d',
        'voice',
        '..',
        '/',
        '%',
        'project:',
        'exchange:bit',
      ),
      { maxLength: 8 },
    )
    .map((w) => w.join(' ')),
);

/** Every path the upstream saw must be one of ours: a known prefix and only slug-safe segments. */
const SAFE_PATH = /^\/(projects_data|exchanges_data)\/v1(\/[a-z0-9_-]+)*(\?[A-Za-z0-9_=&%.+-]*)?$|^\/mcp$/;

let sim: Simulator;
let rest: RestSource;
let mcp: McpSource;
let core: Core;
beforeAll(async () => {
  sim = await startTestSimulator();
  rest = restSource(sim);
  mcp = mcpSource(sim);
  core = await demoCore();
});
afterAll(async () => {
  await rest.close();
  await mcp.close();
  await core.close();
  await sim.close();
});

describe('property: arbitrary input', () => {
  it('the parser never throws, always explains a refusal, and writes what it read back as the same command', () => {
    const registry = new Registry(COMMANDS);
    fc.assert(
      fc.property(hostileText, (text) => {
        const r = registry.grammar.parse(text);
        if (!r.ok) {
          expect(r.message.length).toBeGreaterThan(0);
          return;
        }
        const again = registry.grammar.parse(registry.text(r.invocation as never));
        expect(again.ok && again.invocation, text).toEqual(r.invocation);
      }),
      { numRuns: 2_000 },
    );
  });

  it('the core never throws, never answers empty, and never sends unencoded input upstream', async () => {
    const counter = core.upstream.sim!.counter;
    await fc.assert(
      fc.asyncProperty(hostileText, async (text) => {
        const { reply } = await core.run(text);
        expect(visibleText(reply).trim().length).toBeGreaterThan(0);
        expect(visibleText(reply)).not.toMatch(/\bundefined\b|\bNaN\b|\[object Object\]/);
      }),
      { numRuns: 150 },
    );
    for (const path of counter.byPath.keys()) expect(path, path).toMatch(SAFE_PATH);
  });

  it('the resolver answers every input with one of its three outcomes', async () => {
    const resolver = new Resolver(cached(restSource(sim)), { exchangeNames: true, upstreamProjectResolution: false });
    await fc.assert(
      fc.asyncProperty(hostileText, async (text) => {
        const r = await resolver.resolve(text);
        expect(['resolved', 'ambiguous', 'not_found']).toContain(r.status);
        if (r.status === 'resolved') expect(r.entity.slug).toMatch(SLUG_PATTERN);
      }),
      { numRuns: 300 },
    );
  });

  it('both sources refuse unsafe slugs before any request, and encode the rest', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ maxLength: 40 }), fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,20}$/)), async (slug) => {
        sim.counter.reset();
        for (const call of [() => rest.polCurrent('project', slug), () => mcp.redFlags(slug)]) {
          try {
            await call();
          } catch (err) {
            expect(err).toBeInstanceOf(UpstreamError);
            const kind = (err as UpstreamError).kind;
            if (!SLUG_PATTERN.test(slug)) expect(kind).toBe('invalid_input');
            else expect(['not_found', 'invalid_input']).toContain(kind);
          }
        }
        if (!SLUG_PATTERN.test(slug)) expect(sim.counter.total).toBe(0);
        for (const path of sim.counter.byPath.keys()) expect(path).toMatch(SAFE_PATH);
      }),
      { numRuns: 200 },
    );
  });
});
