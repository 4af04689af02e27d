import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolServerDownEnv } from '../../helpers/tool-server-down.js';
import { ackBody, blocksJson, startHarness, uniqueId, type Harness } from '../../helpers/slack/harness.js';

/**
 * Slack on the tool server alone, with the tool server down. Overall PoL and top ratings exist
 * only in REST, but what failed is the tool server: the person is told the service is unavailable
 * and to try again, never that REST is not configured.
 */

const WAIT_MS = 8_000;
const UNAVAILABLE =
  ':warning: The risk-data service is unavailable right now. Please try again shortly.\nTry again in a minute; `/pol health` shows the service status.';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ env: await toolServerDownEnv() });
});
afterAll(async () => {
  await h.close();
});

/** The one section's text of the ephemeral answer posted on a response_url. */
async function answerText(id: string): Promise<string> {
  const call = await h.fake.waitFor('response_url', (c) => c.id === id && !/Looking up/.test(String(c.args.text)), WAIT_MS);
  const blocks = JSON.parse(blocksJson(call.args)) as { text?: { text: string } }[];
  return blocks.map((b) => b.text?.text ?? '').join('\n');
}

describe('Slack with the tool server down and no REST configured', () => {
  it('answers a picked project (a choice button) with "unavailable, try again", not with configuration advice', async () => {
    const id = uniqueId('down-click');
    expect((await h.click('pol_choice_0', 'project:aave', { responseId: id, ephemeral: true })).status).toBe(200);
    const text = await answerText(id);
    expect(text).toBe(UNAVAILABLE);
    expect(text).not.toContain('POL_API_BASE_URL');
    expect(text).not.toContain('not available through the tool server');
  });

  it('answers /pol top, whose data needs REST, the same way while the tool server is down', async () => {
    const id = uniqueId('down-top');
    const response = await h.command('top', { responseId: id });
    expect(ackBody(response)).toBeUndefined();
    const text = await answerText(id);
    expect(text).toBe(UNAVAILABLE);
    expect(text).not.toContain('POL_API_BASE_URL');
    expect(text).not.toContain('not available through the tool server');
  });
});
