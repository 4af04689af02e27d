import type { User } from 'grammy/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeData } from '../../../adapters/telegram/buttons.js';
import type { Simulator } from '../../../src/sim/server.js';
import type { FakeMessage, TelegramCall } from '../../fakes/telegram/index.js';
import { exploreTwoClicks, reachKey, unreachedOperations, type ReachStep } from '../../helpers/reach.js';
import { startTestSimulator } from '../../helpers/sim.js';
import { shown, startTelegramStack, type TelegramStack } from '../../helpers/telegram.js';

/**
 * Reach through Telegram: help's examples as the Telegram help shows them in a private chat
 * (`e.g. /pol binance, /pol pepe security`), each typed with `/pol`, then every button of each
 * answer pressed on the message that carries it, two clicks deep.
 *
 * polbot sends at most one message a second into a chat, as Telegram asks, so presses one after
 * another in one chat would cost a second each. Each step is instead taken by a person of its own
 * in their own private chat, from the start: the example typed, then the buttons pressed on the way
 * to it. Steps in different chats then run side by side.
 */

let sim: Simulator;
let rest: TelegramStack;
let tools: TelegramStack;

beforeAll(async () => {
  sim = await startTestSimulator();
  rest = await startTelegramStack({
    env: { POL_SOURCE: 'rest', POL_API_BASE_URL: sim.url, POL_API_KEY: sim.apiKey, RATE_LIMIT_PER_USER: '0' },
  });
  // The tool server alone: no REST base URL, so every answer comes over MCP.
  tools = await startTelegramStack({
    env: { POL_SOURCE: 'mcp', POL_MCP_URL: sim.mcpUrl, POL_API_KEY: sim.apiKey, RATE_LIMIT_PER_USER: '0' },
  });
});
afterAll(async () => {
  await Promise.all([rest, tools].filter(Boolean).map((s) => s.close()));
  await sim?.close();
});

const WAIT_MS = 15_000;
/** Chats walked at once. */
const CHATS = 16;

/**
 * The kind of step a command is: entities generalised as `reachKey` does, and a list's options by
 * name alone, in any order. Telegram shows a menu as a row of buttons, one a value; as Discord's
 * walk takes one entry of each menu for all, one value stands for all here (`category=*`).
 */
function kindOf(command: string): string {
  const names = new Set<string>();
  const words = reachKey(command)
    .replace(/\b([a-z_]+)=("[^"]*"|\S+)/g, (_, name: string) => {
      names.add(name);
      return '';
    })
    .split(/\s+/)
    .filter(Boolean);
  return [...words, ...[...names].sort().map((n) => `${n}=*`)].join(' ');
}

interface KeyboardButton {
  text: string;
  callback_data?: string;
}

const buttonsOf = (m: FakeMessage): KeyboardButton[] =>
  (m.message as { reply_markup?: { inline_keyboard: KeyboardButton[][] } }).reply_markup?.inline_keyboard.flat() ?? [];

const textOf = (m: FakeMessage): string => {
  const message = m.message as { text?: string; caption?: string };
  return message.text ?? message.caption ?? '';
};

/** A button on the way to a step: what it carries, and its label to tell it by. */
interface Press {
  data: string;
  label: string;
}

/** One stack's walk. What goes wrong on the way is collected, not thrown, so one run names every failure. */
class Walk {
  readonly problems: string[] = [];
  private people = 0;
  private readonly refused = new WeakSet<TelegramCall>();

  constructor(private readonly stack: TelegramStack) {}

  private get fake() {
    return this.stack.fake;
  }

  person(): User {
    return this.fake.addUser({ first_name: `Ana ${++this.people}` });
  }

  private versions(chatId: number): Map<number, number> {
    return new Map(this.fake.messages(chatId).map((m) => [m.messageId, m.versions.length]));
  }

  /**
   * Waits for an update's first sign in the chat, then for the adapter to finish what it started;
   * the answer is the bot's messages in the chat that are new or edited since `before`.
   */
  private async settle(what: string, chatId: number, before: Map<number, number>, sign: (c: TelegramCall) => boolean) {
    await this.fake.waitFor(sign, WAIT_MS);
    await this.stack.bot.telegram!.adapter.drain();
    for (const c of this.fake.calls((c) => !c.ok && Number(c.args.chat_id) === chatId && !this.refused.has(c))) {
      this.refused.add(c);
      this.problems.push(`${what}: ${c.method} refused: ${c.description}`);
    }
    const answer = this.fake
      .messages(chatId)
      .filter((m) => m.sender === 'bot' && !m.deleted && (before.get(m.messageId) ?? -1) < m.versions.length);
    if (!answer.length) this.problems.push(`${what}: no answer`);
    for (const m of answer) if (/Something went wrong/.test(textOf(m))) this.problems.push(`${what}: ${textOf(m).slice(0, 200)}`);
    return answer;
  }

  /** `/pol <typed>` in the person's private chat; the answer replies to it. */
  async type(user: User, typed: string): Promise<FakeMessage[]> {
    const before = this.versions(user.id);
    const asked = this.fake.say({ chatId: user.id, from: user, text: `/pol ${typed}` }).message.message_id;
    return this.settle(
      `/pol ${typed}`,
      user.id,
      before,
      (c) =>
        (c.method === 'sendMessage' || c.method === 'sendPhoto') &&
        Number(c.args.chat_id) === user.id &&
        (c.args.reply_parameters as { message_id?: number } | undefined)?.message_id === asked,
    );
  }

  /** A press on a button of the answer before; the answer is the message it changed and the ones it sent. */
  async press(user: User, before: FakeMessage[], press: Press, what: string): Promise<FakeMessage[] | undefined> {
    // A command that names something made on the way (a digest's number) differs from run to run: then the label tells.
    const on =
      before.find((m) => buttonsOf(m).some((b) => b.callback_data === press.data)) ??
      before.find((m) => buttonsOf(m).some((b) => b.text === press.label));
    const data = on && (buttonsOf(on).find((b) => b.callback_data === press.data) ?? buttonsOf(on).find((b) => b.text === press.label));
    if (!on || data?.callback_data === undefined) {
      this.problems.push(`${what}: the answer no longer offers ${JSON.stringify(press.label)}`);
      return undefined;
    }
    const versions = this.versions(user.id);
    const { query } = this.fake.pressButton({ chatId: user.id, messageId: on.messageId, from: user, data: data.callback_data });
    const answer = await this.settle(
      what,
      user.id,
      versions,
      (c) => c.method === 'answerCallbackQuery' && c.args.callback_query_id === query.id,
    );
    // In a private chat a press is answered with no words; words are a refusal (a button that no longer works).
    const said = this.fake.callbackAnswers().find((a) => a.queryId === query.id);
    if (said?.text) this.problems.push(`${what}: ${said.text}`);
    return answer;
  }

  /** The step of typing an example and pressing `presses` in turn, by a new person in their own chat. */
  step(key: string, typed: string, presses: Press[]): ReachStep {
    return {
      key,
      run: async () => {
        const user = this.person();
        let answer: FakeMessage[] | undefined = await this.type(user, typed);
        const path = [`/pol ${typed}`];
        for (const p of presses) {
          path.push(p.label);
          answer = await this.press(user, answer, p, path.join(' > '));
          if (!answer) return [];
        }
        return this.offered(answer, key, typed, presses);
      },
    };
  }

  /** The steps an answer's buttons offer, each keyed by the command it runs. */
  private async offered(answer: FakeMessage[], parent: string, typed: string, presses: Press[]): Promise<ReachStep[]> {
    const steps = await Promise.all(
      answer.flatMap(buttonsOf).map(async (b) => {
        if (b.callback_data === undefined) return []; // a link
        const pressed = decodeData(b.callback_data);
        // A command too long for a button is kept in the database under its hash: read back, it is keyed as any other.
        const command =
          pressed?.command ??
          (pressed?.key !== undefined ? await this.stack.bot.telegram!.adapter.keyboards.stored.take(pressed.key) : undefined);
        const key = command !== undefined ? kindOf(command) : `${parent} > ${b.text}`;
        return [this.step(key, typed, [...presses, { data: b.callback_data, label: b.text }])];
      }),
    );
    return steps.flat();
  }
}

/**
 * Help's examples, read from the help messages as Telegram shows them (tags gone): the line under
 * each command, `e.g. /pol chart bitcoin 90d, /pol …`. An example may hold commas of its own
 * (`compare binance, kraken, okx`), so examples are split where the next `/pol` starts.
 */
async function examplesShown(stack: TelegramStack, walk: Walk): Promise<string[]> {
  const user = walk.person();
  await walk.type(user, 'help');
  const lines = stack.fake
    .calls((c) => c.method === 'sendMessage' && c.ok && Number(c.args.chat_id) === user.id)
    .flatMap((c) => shown(c).text.split('\n'))
    .map((l) => l.trim())
    .filter((l) => l.startsWith('e.g. '));
  return lines.flatMap((l) => l.slice('e.g. '.length).split(/, (?=\/pol )/)).map((e) => e.replace(/^\/pol /, ''));
}

async function walkAll(stack: TelegramStack): Promise<{ ran: string[]; examples: string[]; problems: string[] }> {
  const walk = new Walk(stack);
  const examples = await examplesShown(stack, walk);
  const ran = await exploreTwoClicks(
    examples.map((typed) => walk.step(kindOf(typed), typed, [])),
    CHATS,
  );
  return { ran, examples, problems: walk.problems };
}

describe('reach in Telegram', () => {
  it('calls all 55 routes of the two services and all 23 tools from help and two clicks', { timeout: 180_000 }, async () => {
    for (const stack of [rest, tools]) {
      const { ran, examples, problems } = await walkAll(stack);
      expect(examples).toContain('pepe security');
      expect(examples).toContain('compare binance, kraken, okx');
      expect(problems).toEqual([]);
      expect(ran.length).toBeGreaterThan(40);
      // REST alone reaches every route before the tool server is asked anything.
      if (stack === rest) expect(unreachedOperations(sim).routes).toEqual([]);
    }
    expect(unreachedOperations(sim)).toEqual({ routes: [], tools: [] });
  });
});
