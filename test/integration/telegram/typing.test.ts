import type { Message } from 'grammy/types';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import type { Simulator } from '../../../src/sim/server.js';
import type { TelegramCall } from '../../fakes/telegram/index.js';
import { startTestSimulator } from '../../helpers/sim.js';
import { shown, startTelegramStack, type TelegramStack } from '../../helpers/telegram.js';

/**
 * The typing status a slow answer gets in Telegram. It is not a message: it must not hold the
 * answer back behind a chat's pace of one message a second, nor take the place of answers in the
 * bot's 30 a second when many commands wait at once.
 */

let sim: Simulator;
let stack: TelegramStack;

beforeAll(async () => {
  sim = await startTestSimulator();
});
afterAll(async () => {
  await sim?.close();
});
beforeEach(async () => {
  sim.faults.set({ latencyMs: 0 });
  // A bot of its own per test: the pace of typing statuses is the whole bot's.
  stack = await startTelegramStack({ env: { POL_API_BASE_URL: sim.url, POL_API_KEY: sim.apiKey } });
  // Slower than the 300 ms after which polbot shows it is typing; the name lists were loaded at start.
  sim.faults.set({ latencyMs: 600 });
});
afterEach(async () => {
  await stack?.close();
});

const photoAnswering = (said: { message: Message }) => (c: TelegramCall) =>
  c.method === 'sendPhoto' && c.ok && (c.result as Message).reply_to_message?.message_id === said.message.message_id;

it('sends a slow card as soon as it is ready, less than a second after the typing status before it', async () => {
  const ana = stack.fake.addUser({ first_name: 'Ana' });
  const said = stack.fake.say({ chatId: ana.id, from: ana, text: '/pol Binance' });
  const photo = await stack.fake.waitFor(photoAnswering(said), 20_000);

  expect(shown(photo).text).toContain('Binance');
  const typing = stack.fake.calls('sendChatAction');
  expect(typing.map((c) => [Number(c.args.chat_id), c.args.action])).toEqual([[ana.id, 'typing']]);
  // Paced as a message in the chat, the card would have come a full second after it, or later.
  expect(photo.at.getTime() - typing[0]!.at.getTime()).toBeLessThan(1_000);
});

it('shows one typing status when twenty people wait for a slow card at once, and answers them all', async () => {
  const people = Array.from({ length: 20 }, (_, i) => stack.fake.addUser({ first_name: `Trader${i}` }));
  const said = people.map((p) => stack.fake.say({ chatId: p.id, from: p, text: '/pol Binance' }));
  const photos = await Promise.all(said.map((s) => stack.fake.waitFor(photoAnswering(s), 20_000)));

  expect(photos.map((p) => shown(p).text.includes('Binance'))).toEqual(people.map(() => true));
  // All twenty waited past 300 ms within the same second: one status, not twenty sends at Telegram's pace.
  expect(stack.fake.calls('sendChatAction')).toHaveLength(1);
});
