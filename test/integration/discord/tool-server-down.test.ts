import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolServerDownEnv } from '../../helpers/tool-server-down.js';
import { GUILD_ID, messageBody, startStack, type Stack } from '../../helpers/discord.js';

/**
 * Discord on the tool server alone, with the tool server down. A project picked from autocomplete
 * arrives as `project:<slug>` and skips name resolution, so the first thing asked for is overall
 * PoL, which exists only in REST: what the person hears must still be that the service is down.
 */

const EPHEMERAL = 64;

let stack: Stack;

beforeAll(async () => {
  stack = await startStack(await toolServerDownEnv());
});
afterAll(async () => {
  await stack?.close();
});

describe('Discord with the tool server down and no REST configured', () => {
  it('answers /pol card with a picked project with "unavailable, try again", not with configuration advice', async () => {
    const pol = stack.fake.commands(GUILD_ID).find((c) => c.name === 'pol')!.id;
    const h = stack.fake.sendCommand({ name: 'pol', subcommand: 'card', options: { name: 'project:aave' } });
    // Only the asker sees the failure.
    const body = messageBody(await h.waitForFollowup(10_000)) as { content?: string; flags?: number };
    expect(body.flags).toBe(EPHEMERAL);
    expect(body.content).toBe(
      `⚠️ The risk-data service is unavailable right now. Please try again shortly.\nTry again in a minute; </pol health:${pol}> shows the service status.`,
    );
    expect(body.content).not.toContain('POL_API_BASE_URL');
    expect(body.content).not.toContain('not available through the tool server');
  });
});
