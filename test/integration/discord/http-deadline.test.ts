import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../../commands/core/core.js';
import { discordOverHttp, type DiscordHttp } from '../../../adapters/discord/http/index.js';
import { registerDiscordCommands, type DiscordHandle } from '../../../adapters/discord/index.js';
import { startRouteServer, type RouteServer } from '../../../src/http/routes.js';
import { type FakeDiscord, startFakeDiscord } from '../../fakes/discord/index.js';
import { demoCore } from '../../helpers/core.js';
import { GUILD_ID, memoryLogger, settingsFor } from '../../helpers/discord.js';

/**
 * The adapter's start function on a route server of its own, tuned so that nothing answers an
 * interaction before the endpoint's own deadline: the person gets a short apology in the HTTP
 * response instead of Discord's "This interaction failed", and the adapter's later deferral,
 * refused by Discord as a second answer, changes nothing and breaks nothing.
 */

const EPHEMERAL = 64;
let fake: FakeDiscord;
let core: Core;
let http: DiscordHttp;
let handle: DiscordHandle;
let server: RouteServer;
let lines: string[];

beforeAll(async () => {
  fake = await startFakeDiscord({ guildIds: [GUILD_ID] });
  core = await demoCore({ RATE_LIMIT_PER_USER: '0' });
  const logger = memoryLogger();
  lines = logger.lines;
  const discord = { ...settingsFor(fake, GUILD_ID), publicKey: fake.publicKey };
  await registerDiscordCommands({ discord, log: logger.log });
  http = discordOverHttp({ core, discord, log: logger.log, quickAnswerMs: 1_500, deadlineMs: 200 });
  server = await startRouteServer([http.route], 0, '127.0.0.1');
  handle = await http.start();
  await fake.setInteractionsEndpoint(`http://127.0.0.1:${server.port}/discord/interactions`);
}, 120_000);

afterAll(async () => {
  await http?.stop();
  await server?.close();
  await fake?.close();
  await core?.close();
});

describe('Discord over HTTP: an answer later than the endpoint allows', () => {
  it('apologises in the response, and the late deferral Discord refuses leaves no trace', async () => {
    expect(handle.primary).toBe(true);
    const invoke = core.invoke.bind(core);
    let finished: (() => void) | undefined;
    const done = new Promise<void>((r) => {
      finished = r;
    });
    core.invoke = async (invocation, caller) => {
      await new Promise((r) => setTimeout(r, 2_000));
      try {
        return await invoke(invocation, caller);
      } finally {
        finished?.();
      }
    };
    try {
      const h = fake.sendCommand({ name: 'pol', subcommand: 'card', options: { name: 'exchange:kraken' } });
      const x = await h.httpResponse();
      expect(x.failure).toBeUndefined();
      expect(x.ms).toBeLessThan(1_500);
      const r = x.body as { type: number; data?: { content?: string; flags?: number } };
      expect(r.type).toBe(4);
      expect((r.data?.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);
      expect(r.data?.content).toContain('Something went wrong');

      // At 1.5 s the adapter defers as usual; Discord already has its answer and refuses it.
      const refused = await fake.waitFor(
        (c) => c.method === 'POST' && c.path === `/interactions/${h.id}/${h.token}/callback` && c.via !== 'http-response',
        10_000,
      );
      expect(refused.status).toBe(400);
      await done;
      await new Promise((r) => setTimeout(r, 300));
      expect(h.originalEdits()).toHaveLength(0);
      expect(h.followups()).toHaveLength(0);
      expect(h.original()?.content).toContain('Something went wrong');
      expect(lines.join('')).toContain('not answered in time');
      expect(lines.join('').includes(h.token)).toBe(false);
    } finally {
      core.invoke = invoke;
    }
  });
});
