/**
 * The fake Telegram Bot API in its own process, and the people who write to the bot: each command
 * comes from a person of its own in their private chat, all queued at once, and this process waits
 * until every one has been answered. Both ends of each timing are read here, on one clock: when the
 * person sent the command, when the bot's long poll took it, and when the bot's first message
 * answering it (a reply to it) reached Telegram.
 *
 * Not run at a lower priority, unlike the fake Slack: the throttler paces the bot's sends to about
 * 30 a second, too few uploads to take the cores from polbot, and a starved fake would stamp its
 * arrivals late.
 */
import type { Message, Update } from 'grammy/types';
import { startFakeTelegram, type TelegramCall } from '../../test/fakes/telegram/index.js';
import { serveParent } from './child.js';

const fake = await startFakeTelegram();

/** One command of a burst, as this process saw it; times are epoch ms. */
export interface Answered {
  text: string;
  saidAt: number;
  /** When the getUpdates that handed the command to the bot answered. */
  takenAt?: number;
  /** When the first message answering it arrived, and which method sent it. */
  repliedAt?: number;
  method?: string;
}

export interface BurstOutcome {
  answered: Answered[];
  /** Every call the bot made during the burst, by method and status (`sendPhoto 200`). */
  calls: Record<string, number>;
}

const SENDS = new Set(['sendphoto', 'sendmessage']);

/** Queues one command per person, then waits for every first reply (or the deadline). */
async function burst(texts: string[], timeoutMs: number): Promise<BurstOutcome> {
  fake.clear();
  const people = texts.map(() => fake.addUser());
  const byMessage = new Map<string, Answered>();
  const byUpdate = new Map<number, Answered>();
  const answered: Answered[] = texts.map((text, i) => {
    const saidAt = Date.now();
    const said = fake.say({ chatId: people[i]!.id, from: people[i]!, text });
    const entry: Answered = { text, saidAt };
    byMessage.set(`${said.message.chat.id}:${said.message.message_id}`, entry);
    if (said.update) byUpdate.set(said.update.update_id, entry);
    return entry;
  });
  let seen = 0;
  let open = answered.length;
  const read = (call: TelegramCall) => {
    if (!call.ok) return;
    const method = call.method.toLowerCase();
    if (method === 'getupdates') {
      for (const u of call.result as Update[]) {
        const entry = byUpdate.get(u.update_id);
        if (entry && entry.takenAt === undefined) entry.takenAt = call.at.getTime();
      }
      return;
    }
    if (!SENDS.has(method)) return;
    const result = call.result as Message;
    const entry = result.reply_to_message && byMessage.get(`${result.chat.id}:${result.reply_to_message.message_id}`);
    if (!entry || entry.repliedAt !== undefined) return;
    entry.repliedAt = call.at.getTime();
    entry.method = call.method;
    open--;
  };
  const deadline = Date.now() + timeoutMs;
  while (open > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const calls = fake.calls();
    for (; seen < calls.length; seen++) read(calls[seen]!);
  }
  const calls: Record<string, number> = {};
  for (const c of fake.calls()) calls[`${c.method} ${c.status}`] = (calls[`${c.method} ${c.status}`] ?? 0) + 1;
  return { answered, calls };
}

serveParent(
  { url: fake.url, token: fake.token },
  async (msg) => {
    switch (msg.op) {
      case 'burst':
        return { outcome: await burst(msg.texts as string[], msg.timeoutMs as number) };
      default:
        throw new Error(`unknown op ${msg.op}`);
    }
  },
  () => fake.close(),
);
