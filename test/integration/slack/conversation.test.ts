import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SeenEvents } from '../../../adapters/slack/events-seen.js';
import { DEFAULT_PROMPTS } from '../../../adapters/slack/conversation.js';
import { openPglite, type Db } from '../../../src/db/connection.js';
import { migrate } from '../../../src/db/migrations.js';
import {
  appMentionBody,
  assistantThreadStartedBody,
  directMessageBody,
  messageTs,
  postToBolt,
  type RecordedCall,
} from '../../fakes/slack/index.js';
import { DEFAULT_IDENTITY, DEFAULT_USER_ID } from '../../fakes/slack/identity.js';
import { blocksJson, headerOf, quiesce, SIGNING_SECRET, startHarness, type Harness } from '../../helpers/slack/harness.js';
import { polText } from '../../helpers/truth.js';

/**
 * polbot where people talk to it, through the real Bolt app and the fake Slack: a mention in a
 * channel or a thread, a message in its DM, and the DM's agent surface (suggested prompts, a status
 * line before the answer, the thread titled from its question). Answers carry the simulator's own
 * values; an ambiguous name is answered with its candidates; its own messages, other bots' and
 * edits are not answered; an event Slack sends again is answered once.
 */

const BOT = DEFAULT_IDENTITY.botUserId;
const CHANNEL = 'CCONVO001';
const DM = 'D0CONVO01';
const WAIT = 10_000;
let h: Harness;
let db: Db;

beforeAll(async () => {
  db = await openPglite();
  await migrate(db);
  const seen = new SeenEvents(db);
  h = await startHarness({ workspaces: { removed: async () => undefined, firstDelivery: (id) => seen.first(id) } });
});
afterAll(async () => {
  await quiesce(h);
  await h.close();
  await db.close();
});

const send = (body: string) => postToBolt(h.endpoint, body, SIGNING_SECRET, { contentType: 'application/json' });
const postedIn = (channel: string, threadTs?: string) =>
  h.fake
    .calls('chat.postMessage')
    .filter((c) => c.args.channel === channel && c.status === 200 && (threadTs === undefined ? true : c.args.thread_ts === threadTs));
const waitPost = (channel: string, since: Set<RecordedCall>) =>
  h.fake.waitFor('chat.postMessage', (c) => !since.has(c) && c.args.channel === channel, WAIT);
const waitEphemeral = (channel: string, since: Set<RecordedCall>) =>
  h.fake.waitFor('chat.postEphemeral', (c) => !since.has(c) && c.args.channel === channel, WAIT);
const callsSoFar = (method: string) => new Set(h.fake.calls(method));
const binancePol = () => polText(h.sim.store.exchange('binance')!.pol.at(-1)!);

describe('mentions', () => {
  it('answers "@polbot is binance safe?" in a thread under the question, with the dataset’s PoL', async () => {
    const ts = messageTs();
    const seen = callsSoFar('chat.postMessage');
    await send(appMentionBody({ text: `<@${BOT}> is binance safe?`, channel: CHANNEL, ts }));
    const answer = await waitPost(CHANNEL, seen);
    expect(answer.args.thread_ts).toBe(ts);
    expect(headerOf(answer.args)).toContain('Binance');
    expect(blocksJson(answer.args)).toContain(binancePol());
  });

  it('answers in the thread it was asked in, and takes the slash grammar as written', async () => {
    const parent = messageTs();
    const seen = callsSoFar('chat.postMessage');
    await send(appMentionBody({ text: `<@${BOT}> binance solvency`, channel: CHANNEL, threadTs: parent }));
    const answer = await waitPost(CHANNEL, seen);
    expect(answer.args.thread_ts).toBe(parent);
    expect(blocksJson(answer.args)).toMatch(/[Ss]olvency/);
  });

  it('asks which one, to the asker alone in the thread, when a name could be several; the pick is answered', async () => {
    const ts = messageTs();
    const seen = callsSoFar('chat.postEphemeral');
    await send(appMentionBody({ text: `<@${BOT}> is lido safe?`, channel: CHANNEL, ts }));
    const choice = await waitEphemeral(CHANNEL, seen);
    expect(choice.args).toMatchObject({ user: DEFAULT_USER_ID, thread_ts: ts });
    const json = blocksJson(choice.args);
    expect(json).toContain('project:lido-dao');
    expect(json).toContain('project:lido-staked-ether');
    // Each candidate is a section with a Choose button carrying the command it runs.
    const button = ((choice.args.blocks ?? []) as { accessory?: { action_id: string; value: string } }[])
      .map((b) => b.accessory)
      .find((e) => e?.value.endsWith('project:lido-dao'))!;
    const posts = callsSoFar('chat.postMessage');
    await h.click(button.action_id, button.value, { channel: CHANNEL, ephemeral: true });
    const card = await waitPost(CHANNEL, posts);
    expect(headerOf(card.args)).toContain('Lido DAO');
  });

  it('answers a sentence it cannot follow with three questions it can, to the asker alone', async () => {
    const seen = callsSoFar('chat.postEphemeral');
    await send(appMentionBody({ text: `<@${BOT}> what is the weather like in paris tomorrow`, channel: CHANNEL }));
    const help = await waitEphemeral(CHANNEL, seen);
    const values = ((help.args.blocks ?? []) as { type: string; elements?: { value?: string }[] }[])
      .flatMap((b) => (b.type === 'actions' ? (b.elements ?? []) : []))
      .map((e) => e.value);
    expect(values).toEqual(['compare binance, kraken', 'why binance', 'section binance solvency']);
  });

  it('does not answer other bots, edits, or an event Slack sends again', async () => {
    const seen = callsSoFar('chat.postMessage');
    const ephemeral = callsSoFar('chat.postEphemeral');
    await send(appMentionBody({ text: `<@${BOT}> is binance safe?`, channel: 'CQUIET001', botId: 'B0OTHER01' }));
    await send(directMessageBody({ text: 'is binance safe?', channel: 'DQUIET001', subtype: 'message_changed' }));
    await send(directMessageBody({ text: 'is binance safe?', channel: 'DQUIET001', user: BOT }));
    // Slack's retry of one event: the same event id, answered once.
    const retried = appMentionBody({ text: `<@${BOT}> is kraken safe?`, channel: 'CRETRY001', eventId: 'Ev0RETRY0001' });
    await send(retried);
    // Slack retries as it does: the same body signed anew a moment later, saying it is a retry, so
    // that it passes the signature and replay checks and only the event id tells it apart.
    const retry = await postToBolt(h.endpoint, retried, SIGNING_SECRET, {
      contentType: 'application/json',
      timestampSec: Math.floor(Date.now() / 1000) + 1,
      headers: { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' },
    });
    expect(retry.status).toBe(200);
    await waitPost('CRETRY001', seen);
    await quiesce(h);
    expect(postedIn('CRETRY001')).toHaveLength(1);
    expect(
      h.fake.calls('chat.postMessage').filter((c) => !seen.has(c) && ['CQUIET001', 'DQUIET001'].includes(String(c.args.channel))),
    ).toEqual([]);
    expect(h.fake.calls('chat.postEphemeral').filter((c) => !ephemeral.has(c))).toEqual([]);
  });
});

describe('the DM', () => {
  it('answers a plain DM in the DM, without a status line, and a plain DM thread in its thread even though Slack refuses a status there', async () => {
    const seen = callsSoFar('chat.postMessage');
    await send(directMessageBody({ text: 'is binance safe?', channel: DM }));
    const answer = await waitPost(DM, seen);
    expect(answer.args.thread_ts).toBeUndefined();
    expect(blocksJson(answer.args)).toContain(binancePol());

    const parent = messageTs();
    const again = callsSoFar('chat.postMessage');
    await send(directMessageBody({ text: 'top exchanges', channel: DM, threadTs: parent }));
    const inThread = await waitPost(DM, again);
    expect(inThread.args.thread_ts).toBe(parent);
    const refused = h.fake.calls('assistant.threads.setStatus').filter((c) => c.args.thread_ts === parent);
    expect(refused.map((c) => (c.response as { ok: boolean; error?: string }).error)).toEqual(['invalid_thread']);
  });

  it('offers four prompts when its agent surface opens, shows a status line before the answer, and titles the thread once', async () => {
    const channel = 'D0AGENT01';
    const threadTs = h.fake.agent.open(channel);
    await send(assistantThreadStartedBody({ channel, threadTs }));
    await h.fake.waitFor('assistant.threads.setSuggestedPrompts', (c) => c.args.thread_ts === threadTs, WAIT);
    // Nothing is known of what this workspace asks (no lookups yet): the defaults, each a question polbot follows.
    expect(h.fake.agent.of(channel, threadTs)!.prompts).toEqual([DEFAULT_PROMPTS.map((p) => ({ title: p, message: p }))]);

    const seen = callsSoFar('chat.postMessage');
    await send(directMessageBody({ text: 'Is Binance safe?', channel, threadTs }));
    const answer = await waitPost(channel, seen);
    expect(answer.args.thread_ts).toBe(threadTs);
    expect(blocksJson(answer.args)).toContain(binancePol());
    const thread = h.fake.agent.of(channel, threadTs)!;
    expect(thread.status).toEqual(['is looking up Binance…']);
    expect(thread.titles).toEqual(['Is Binance safe?']);
    // The status line went out before the answer did.
    const order = h.fake.calls().map((c) => c.method);
    expect(order.lastIndexOf('assistant.threads.setStatus')).toBeLessThan(order.lastIndexOf('chat.postMessage'));

    const next = callsSoFar('chat.postMessage');
    await send(directMessageBody({ text: 'compare binance and kraken', channel, threadTs }));
    await waitPost(channel, next);
    expect(thread.status).toEqual(['is looking up Binance…', 'is looking up Binance and Kraken…']);
    expect(thread.titles).toEqual(['Is Binance safe?']);
  });
});
