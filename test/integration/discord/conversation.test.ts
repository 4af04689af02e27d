import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedCall } from '../../fakes/discord/index.js';
import { userPayload } from '../../fakes/discord/world.js';
import { startStack, type Stack } from '../../helpers/discord.js';
import { polText } from '../../helpers/truth.js';

/**
 * polbot where people talk to it in Discord, through the real discord.js client and the fake
 * Discord's gateway: a message mentioning the bot in a channel, and a DM, answered as a reply to
 * the message that pings nobody, in plain words or the slash grammar as written, with the
 * simulator's own values; an ambiguous name answered with its candidates, whose pick is answered;
 * other bots, messages not naming the bot and a replayed message not answered (twice).
 */

let stack: Stack;
const WAIT = 10_000;
beforeAll(async () => {
  stack = await startStack({ RATE_LIMIT_PER_USER: '0' });
});
afterAll(() => stack.close());

const bot = () => `<@${stack.fake.botUser.id}>`;
const posts = (channelId: string) => stack.fake.calls((c) => c.method === 'POST' && c.path === `/channels/${channelId}/messages`);
const replyTo = (channelId: string, messageId: string) =>
  stack.fake.waitFor(
    (c) =>
      c.method === 'POST' &&
      c.path === `/channels/${channelId}/messages` &&
      (c.body as { message_reference?: { message_id?: string } } | undefined)?.message_reference?.message_id === messageId,
    WAIT,
  );
type Body = {
  content?: string;
  embeds?: { title?: string; description?: string; fields?: { value: string }[] }[];
  components?: { components: { custom_id?: string; label?: string; options?: { value: string; label: string }[] }[] }[];
  allowed_mentions?: unknown;
  message_reference?: { message_id: string };
};
const body = (c: RecordedCall) => c.body as Body;
const shown = (c: RecordedCall) => JSON.stringify(body(c).embeds ?? []) + (body(c).content ?? '');

describe('mentions and DMs in Discord', () => {
  it('answers "@polbot is binance safe?" as a reply to the message, pinging nobody, with the dataset’s PoL', async () => {
    const asked = stack.fake.say({ channelId: stack.channelId, content: `${bot()} is binance safe?` });
    const answer = await replyTo(stack.channelId, asked.id);
    expect(body(answer).allowed_mentions).toEqual({ parse: [], replied_user: false });
    expect(shown(answer)).toContain('Binance');
    expect(shown(answer)).toContain(polText(stack.core.upstream.sim!.store.exchange('binance')!.pol.at(-1)!));
  });

  it('answers a DM in the DM, and takes the slash grammar as written', async () => {
    const dm = stack.fake.addDmChannel();
    const asked = stack.fake.say({ channelId: dm, content: 'kraken solvency' });
    const answer = await replyTo(dm, asked.id);
    expect(shown(answer)).toContain('Kraken');
    expect(shown(answer)).toMatch(/[Ss]olvency/);
  });

  it('answers an ambiguous name with its candidates, and the pick with the card', async () => {
    const asked = stack.fake.say({ channelId: stack.channelId, content: `${bot()} is lido safe?` });
    const answer = await replyTo(stack.channelId, asked.id);
    const menu = body(answer).components?.[0]?.components[0];
    expect(menu?.options?.map((o) => o.label).join(' | ')).toMatch(/Lido DAO.*Lido Staked Ether|Lido Staked Ether.*Lido DAO/);
    const message = stack.fake.messages(stack.channelId).find((m) => m.message_reference?.message_id === asked.id)!;
    const picked = menu!.options!.find((o) => o.label.startsWith('Lido DAO'))!;
    const h = stack.fake.sendComponent({
      custom_id: menu!.custom_id!,
      component_type: 3,
      values: [picked.value],
      message,
      channelId: stack.channelId,
    });
    const card = await h.waitForFollowup(WAIT);
    expect(JSON.stringify(card.body)).toContain('Lido DAO');
  });

  it('answers a sentence it cannot follow with three questions it can', async () => {
    const asked = stack.fake.say({ channelId: stack.channelId, content: `${bot()} what is the weather like in paris tomorrow` });
    const answer = await replyTo(stack.channelId, asked.id);
    const labels = (body(answer).components ?? []).flatMap((r) => r.components.map((c) => c.label));
    expect(labels).toEqual(['compare binance and kraken', 'why is binance so risky', "show me binance's reserves"]);
  });

  it('does not answer other bots, messages that do not name it, or the same message twice', async () => {
    const before = posts(stack.channelId).length;
    stack.fake.say({
      channelId: stack.channelId,
      content: `${bot()} is binance safe?`,
      author: userPayload({ username: 'otherbot' }, true),
    });
    stack.fake.say({ channelId: stack.channelId, content: 'is binance safe?' });
    const asked = stack.fake.say({ channelId: stack.channelId, content: `${bot()} is okx safe?` });
    // The gateway sends it again (a resume replays it): one answer.
    stack.fake.dispatch('MESSAGE_CREATE', {
      ...asked,
      guild_id: Object.keys(stack.fake.channelIds)[0],
      channel_type: 0,
      member: { roles: [], joined_at: asked.timestamp, deaf: false, mute: false, flags: 0 },
    });
    await replyTo(stack.channelId, asked.id);
    await new Promise((r) => setTimeout(r, 500));
    const mine = posts(stack.channelId).slice(before);
    expect(mine.map((c) => body(c).message_reference?.message_id)).toEqual([asked.id]);
  });

  it('refuses, as Discord does, a reply to a message that is not in the channel', async () => {
    const res = await fetch(`${stack.fake.apiUrl}/v10/channels/${stack.channelId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bot ${stack.fake.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'hello', message_reference: { message_id: '1300000000000000000' } }),
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('Unknown message');
    const lenient = await fetch(`${stack.fake.apiUrl}/v10/channels/${stack.channelId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bot ${stack.fake.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'hello', message_reference: { message_id: '1300000000000000000', fail_if_not_exists: false } }),
    });
    expect(lenient.status).toBe(200);
  });
});
