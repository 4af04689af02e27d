import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { polText } from '../../helpers/truth.js';
import { blockActionsPayload, DEFAULT_CHANNEL_ID, slashCommandPayload } from '../../fakes/slack/index.js';
import { validateMessage } from '../../helpers/slack/block-kit-limits.js';
import { headerOf, last, PNG_SIGNATURE, quiesce, startHarness, uniqueId, type Harness } from '../../helpers/slack/harness.js';

const WAIT_MS = 8_000;

let h: Harness;
let opened: { authorization?: string }[] = [];

beforeAll(async () => {
  h = await startHarness({
    mode: 'socket',
    customRoutes: [
      { path: '/healthz', method: 'GET', respond: async () => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: 'ok' }) },
    ],
  });
  await h.fake.socket.waitForConnection();
  // Captured here: beforeEach clears the recorder.
  opened = h.fake.calls('apps.connections.open').map((c) => ({ authorization: c.headers.authorization }));
});

afterAll(async () => {
  await h.close();
});

beforeEach(async () => {
  await quiesce(h);
  h.fake.clear();
  h.sim.faults.reset();
});

describe('Socket Mode', () => {
  it('connects through apps.connections.open with the app-level token', async () => {
    expect(h.slack.mode).toBe('socket');
    expect(h.fake.socket.connectionCount()).toBe(1);
    expect(h.fake.socket.connectionsOpened()).toBe(1);
    expect(opened).toEqual([{ authorization: `Bearer ${h.fake.appToken}` }]);
    await h.fake.socket.ping();
  });

  it('acks a slash_commands envelope within 3 s while the upstream takes 5 s', async () => {
    await h.core.run('search kraken');
    h.sim.faults.set({ latencyMs: 5_000 });
    const id = uniqueId('sock-slow');
    const payload = slashCommandPayload({ text: 'bitvavo', response_url: h.fake.responseUrl(id) });

    const started = performance.now();
    // sendEnvelope rejects when no ack arrives within Slack's 3 seconds.
    const ack = await h.fake.socket.sendEnvelope({ type: 'slash_commands', payload, timeoutMs: 3_000 });

    expect(performance.now() - started).toBeLessThan(3_000);
    expect(ack.payload ?? {}).toEqual({});
    const progress = await h.fake.waitFor('response_url', (c) => c.id === id, 5_000);
    expect(progress.args).toMatchObject({ response_type: 'ephemeral', text: expect.stringContaining('Looking up “bitvavo”') });
    await h.fake.waitFor('response_url', (c) => c.id === id && c !== progress, 15_000);
  });

  it('posts the card for a slash command to the channel, with its PNG chart', async () => {
    const payload = slashCommandPayload({ text: 'kraken', channel_id: 'C0SOCKET01', response_url: h.fake.responseUrl() });

    const ack = await h.fake.socket.sendEnvelope({ type: 'slash_commands', payload });

    expect(ack.envelope_id).toBeTruthy();
    const post = await h.fake.waitFor('chat.postMessage', (c) => c.args.channel === 'C0SOCKET01', WAIT_MS);
    expect(headerOf(post.args)).toBe('Kraken');
    expect(validateMessage(post.args)).toEqual([]);
    expect(JSON.stringify(post.args.blocks)).toContain(polText(last(h.sim.store.exchange('kraken')!.pol)));
    await h.fake.waitFor('files.completeUploadExternal', (c) => c.args.channel_id === 'C0SOCKET01', WAIT_MS);
    expect(h.fake.uploads()[0]?.bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
  });

  it('acks an interactive block_actions envelope and posts the chosen entity', async () => {
    const id = uniqueId('sock-click');
    const payload = blockActionsPayload({
      actions: [{ action_id: 'pol_choice_0', value: 'project:lido-dao', type: 'button' }],
      response_url: h.fake.responseUrl(id),
      container: { type: 'message', message_ts: '1763800000.000500', channel_id: DEFAULT_CHANNEL_ID, is_ephemeral: true },
    });

    const ack = await h.fake.socket.sendEnvelope({ type: 'interactive', payload });

    expect(ack.payload).toEqual({});
    const post = await h.fake.waitFor('chat.postMessage', undefined, WAIT_MS);
    expect(headerOf(post.args)).toBe('Lido DAO (LDO)');
    await h.fake.waitFor('response_url', (c) => c.id === id && c.args.delete_original === true, WAIT_MS);
  });

  it('acks the envelope bare and answers a personal command (help) privately on the reply link', async () => {
    const id = uniqueId('sock-help');
    const payload = slashCommandPayload({ text: 'help', response_url: h.fake.responseUrl(id) });
    const ack = await h.fake.socket.sendEnvelope({ type: 'slash_commands', payload });
    expect(ack.payload ?? {}).toEqual({});
    const answer = await h.fake.waitFor('response_url', (c) => c.id === id, WAIT_MS);
    expect(answer.args).toMatchObject({ response_type: 'ephemeral' });
    expect(validateMessage(answer.args)).toEqual([]);
    expect(JSON.stringify(answer.args.blocks)).toContain('/pol compare');
  });

  it('serves custom routes on the configured host and port', async () => {
    expect(h.slack.port).toBeGreaterThan(0);
    const res = await fetch(`http://127.0.0.1:${h.slack.port}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('ok');
    expect((await fetch(`http://127.0.0.1:${h.slack.port}/slack/events`, { method: 'POST' })).status).toBe(404);
  });
});
