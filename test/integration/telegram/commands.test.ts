import type { Message, User } from 'grammy/types';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../fakes/telegram/index.js';
import { last } from '../../helpers/discord.js';
import { startTelegramParts, type TelegramParts, until } from '../../helpers/telegram.js';
import { polText, scoreText } from '../../helpers/truth.js';

/**
 * polbot in Telegram, through the product's adapter and the real grammY client against the fake
 * Bot API: what a person sends, and what the chat then holds. Values are the simulator's own.
 */

const NOTE_TTL_MS = 400;
let p: TelegramParts;
let ana: User;
let ben: User;
let stranger: User;
let group: number;

beforeAll(async () => {
  p = await startTelegramParts({ noticeTtlMs: NOTE_TTL_MS });
  ana = p.fake.addUser({ first_name: 'Ana', username: 'ana_risk' });
  ben = p.fake.addUser({ first_name: 'Ben' });
  // Someone in the group who never opened a private chat with polbot: polbot cannot write to them first.
  stranger = p.fake.addUser({ first_name: 'Sam', startedBot: false });
});
afterAll(async () => {
  await p?.close();
});
// A group of its own for each test: Telegram allows a bot 20 messages a minute in one group, and
// polbot keeps to it, so tests sharing one would wait on each other's minute.
beforeEach(() => {
  group = p.fake.addGroup({ title: 'Risk desk', creator: ana, members: [ben, stranger] }).id;
});

const botMessages = (chatId: number) => p.fake.messages(chatId).filter((m) => m.sender === 'bot');
const replyTo = (m: FakeMessage) => (m.message as Message).reply_to_message?.message_id;
const words = (m: FakeMessage) => {
  const msg = m.message as Message;
  return msg.text ?? msg.caption ?? '';
};
const buttonsOf = (m: FakeMessage) =>
  (
    (m.message as { reply_markup?: { inline_keyboard: { text: string; callback_data?: string; url?: string }[][] } }).reply_markup
      ?.inline_keyboard ?? []
  ).flat();

/**
 * Says `text` and waits for polbot's answer to it: the messages that reply to it, once they stop
 * coming. The throttler sends at most one message a second to a private chat, as Telegram asks.
 */
async function ask(chatId: number, from: User, text: string, settleMs = 300): Promise<FakeMessage[]> {
  const said = p.fake.say({ chatId, from, text });
  const id = said.message.message_id;
  await until(() => (botMessages(chatId).some((m) => replyTo(m) === id) ? true : undefined), `an answer to ${text}`);
  // A photo's text follows it as a reply to the photo: the answer is whole once nothing more comes for a moment.
  for (let seen = -1; seen !== botMessages(chatId).length; ) {
    seen = botMessages(chatId).length;
    await new Promise((r) => setTimeout(r, settleMs));
  }
  // What follows the first message of an answer (a photo's text, a CSV) replies to it.
  const answer = new Set([id]);
  return botMessages(chatId).filter((m) => {
    if (!answer.has(replyTo(m) ?? -1)) return false;
    answer.add(m.messageId);
    return true;
  });
}

describe('commands', () => {
  it('answers /pol kraken with one photo of the chart and the card as its caption, with the directions and the simulated mark', async () => {
    const kraken = p.sim.exchange('kraken')!;
    const answer = await ask(ana.id, ana, '/pol kraken');
    expect(answer).toHaveLength(1);
    const [card] = answer as [FakeMessage];
    const photo = (card.message as Message).photo!;
    expect(photo.length).toBeGreaterThan(0);
    const png = p.fake.fileBytes(photo.at(-1)!.file_id)!;
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    const caption = words(card);
    expect(caption).toContain('Kraken');
    expect(caption).toContain(`Probability of Loss: ${polText(last(kraken.pol))}`);
    expect(caption).toContain('(lower is safer)');
    expect(caption).toContain('Category quality scores (higher is better)');
    expect(caption).toContain(`Security: ${scoreText(last(kraken.categories.security.scores))}`);
    expect(caption).toContain('source REST');
    expect(caption).toContain('SIMULATED DATA');
    // The card's own follow-ups as buttons, each carrying its command.
    expect(buttonsOf(card)).toContainEqual({ text: 'Why?', callback_data: 'c=why exchange:kraken' });
  });

  it('sends a card too long for a caption as the photo and then its text', async () => {
    // Two long red flags take Pepe's card well past a caption's 1,024 characters.
    for (const which of ['mm', 'investor'] as const)
      p.sim.addRedFlag('pepe', which, `${which}: ${'the team wallet moved funds again; '.repeat(14)}`);
    p.core.upstream.source.cache.clear();
    const answer = await ask(ana.id, ana, '/pol pepe', 1_300);
    const [photo, ...texts] = answer;
    expect((photo!.message as Message).photo).toBeDefined();
    expect((photo!.message as Message).caption).toBeUndefined();
    expect(texts.length).toBeGreaterThanOrEqual(1);
    expect(texts.every((t) => replyTo(t) === photo!.messageId)).toBe(true);
    const text = texts.map(words).join('\n');
    expect(text.length).toBeGreaterThan(1024);
    expect(text).toContain(`Probability of Loss: ${polText(last(p.sim.project('pepe')!.pol))}`);
    expect(text).toContain('Red flags');
    // Buttons go under the last message of the answer.
    expect(buttonsOf(texts.at(-1)!).length).toBeGreaterThan(0);
  });

  it('shows hostile upstream text as text: no tag, link or mention of it comes alive', async () => {
    const hostile = '<b>Free</b> & <a href="https://evil.example">claim</a> @support_desk \u202Egnp.exe';
    p.sim.rename('project', 'aave', hostile);
    p.sim.addRedFlag('aave', 'mm', '</pre><i>unclosed @admin_team');
    p.core.upstream.source.cache.clear();
    try {
      const answer = await ask(ana.id, ana, '/pol aave', 1_300);
      const refused = p.fake.calls((c) => !c.ok && /^send/.test(c.method));
      expect(refused).toEqual([]);
      const text = answer.map(words).join('\n');
      expect(text).toContain('<b>Free</b> & <a href="https://evil.example">claim</a>');
      expect(text).toContain('</pre><i>unclosed');
      // Nothing from upstream became an entity of its own: only polbot's bold, italics and code.
      const entities = answer.flatMap((m) => [
        ...((m.message as Message).entities ?? []),
        ...((m.message as Message).caption_entities ?? []),
      ]);
      expect(entities.filter((e) => !['bold', 'italic', 'code', 'pre'].includes(e.type))).toEqual([]);
      // A name that would mention someone is broken with a zero-width space; a reordering mark is gone.
      expect(text).toContain('@\u200bsupport_desk');
      expect(text).toContain('@\u200badmin_team');
      expect(text).not.toContain('\u202E');
    } finally {
      p.sim.rename('project', 'aave', 'Aave');
      p.core.upstream.source.cache.clear();
    }
  });

  it('takes /pol@polbot in a group, and leaves /pol@another_bot to that bot', async () => {
    const before = botMessages(group).length;
    p.fake.say({ chatId: group, from: ben, text: '/pol@another_bot kraken' });
    const answer = await ask(group, ben, `/pol@${p.fake.bot.username} kraken`);
    expect(words(answer[0]!)).toContain('Kraken');
    expect(botMessages(group).length).toBe(before + answer.length);
  });
});

describe('a list', () => {
  it('answers listed assets as a monospaced table, and sends the whole list as a CSV document beside it', async () => {
    const e = p.sim.exchange('kraken')!;
    const listed = e.listed.map((id) => p.sim.data.tokens.find((t) => t.id === id)!).sort((a, b) => b.marketCap - a.marketCap);
    const [table] = await ask(ana.id, ana, '/pol assets exchange:kraken');
    const pre = (table!.message as Message).entities?.find((x) => x.type === 'pre');
    expect(pre).toBeDefined();
    for (const t of listed.slice(0, 10)) expect(words(table!)).toContain(`${t.name} (${t.ticker})`);

    const answer = await ask(ana.id, ana, '/pol assets exchange:kraken sort=polScore order=asc export=csv', 1_300);
    const document = answer.map((m) => (m.message as Message).document).find(Boolean)!;
    expect(document.file_name).toBe('assets-kraken.csv');
    const [header, ...lines] = p.fake.fileBytes(document.file_id)!.toString('utf8').trim().split('\n');
    expect(header).toBe('name,ticker,categories,market_cap_usd,pol');
    const byPol = [...listed].sort((a, b) => a.polScore - b.polScore);
    expect(lines.map((l) => l.split(','))).toEqual(
      byPol.map((t) => [t.name, t.ticker, t.category, String(t.marketCap), String(t.polScore)]),
    );
  });
});

describe('an ambiguous name', () => {
  it('offers the candidates as buttons; only the asker picks, and the pick becomes that entity’s card', async () => {
    const chosen = p.sim.project('shibaswap')!;
    const [question] = await ask(group, ben, '/pol shiba');
    expect(words(question!)).toContain('shiba');
    expect(
      buttonsOf(question!)
        .map((b) => b.callback_data)
        .sort(),
    ).toEqual(['e=project:shiba-inu', 'e=project:shibaswap']);

    // Ana did not ask: her press is answered to her alone and runs nothing.
    p.fake.pressButton({ chatId: group, messageId: question!.messageId, from: ana, data: 'e=project:shibaswap' });
    const refused = await until(() => p.fake.callbackAnswers().find((a) => /for @?Ben/.test(a.text ?? '')), 'the refusal');
    expect(refused.showAlert).toBe(true);

    const count = botMessages(group).length;
    p.fake.pressButton({ chatId: group, messageId: question!.messageId, from: ben, data: 'e=project:shibaswap' });
    const card = await until(
      () => botMessages(group).find((m) => m.messageId > question!.messageId && !m.deleted && words(m).includes(chosen.name)),
      'the chosen card',
    );
    // The question is gone; the card answers Ben's message, and nothing names the one nobody chose.
    expect(p.fake.messages(group).find((m) => m.messageId === question!.messageId)?.deleted).toBe(true);
    expect(replyTo(card)).toBe(replyTo(question!));
    expect(words(card)).toContain(polText(last(chosen.pol)));
    expect(botMessages(group).slice(count).map(words).join('\n')).not.toContain('Shiba Inu (SHIB)');
  });

  it('turns the question into the answer in place when the answer has no chart', async () => {
    const chosen = p.sim.project('shibaswap')!;
    const [question] = await ask(group, ben, '/pol flags shiba');
    const pick = buttonsOf(question!).find((b) => b.callback_data?.includes('shibaswap'))!;
    p.fake.pressButton({ chatId: group, messageId: question!.messageId, from: ben, data: pick.callback_data! });
    const edited = await until(() => {
      const m = p.fake.messages(group).find((x) => x.messageId === question!.messageId)!;
      return m.versions.length > 0 ? m : undefined;
    }, 'the edit');
    expect(words(edited)).toContain(`${chosen.name}: red flags and signals`);
    expect(p.fake.calls('editMessageText').some((c) => c.ok && c.args.message_id === question!.messageId)).toBe(true);
  });
});

describe('inline mode', () => {
  it('offers the card of a name, one labelled result per candidate of an ambiguous one, and nothing for no match', async () => {
    const kraken = p.sim.exchange('kraken')!;
    p.fake.inlineQuery({ from: ben, query: 'kraken' });
    const one = await until(() => p.fake.inlineAnswers().at(0), 'the inline answer');
    expect(one.results).toHaveLength(1);
    const result = one.results[0] as { title: string; input_message_content: { message_text: string; parse_mode: string } };
    expect(result.title).toContain('Kraken');
    expect(result.title).toContain(polText(last(kraken.pol)));
    expect(result.input_message_content.parse_mode).toBe('HTML');
    expect(result.input_message_content.message_text).toContain(polText(last(kraken.pol)));
    // No chart can ride on a text result: its series is a line of bars.
    expect(result.input_message_content.message_text).toMatch(/[▁▂▃▄▅▆▇█]{10,}/);

    p.fake.inlineQuery({ from: ben, query: 'shiba' });
    const two = await until(() => p.fake.inlineAnswers().at(1), 'the second inline answer');
    const titles = (two.results as { title: string }[]).map((r) => r.title);
    expect(titles).toHaveLength(2);
    expect(titles.find((t) => t.startsWith('ShibaSwap'))).toContain(polText(last(p.sim.project('shibaswap')!.pol)));
    expect(titles.find((t) => t.startsWith('Shiba Inu'))).toContain(polText(last(p.sim.project('shiba-inu')!.pol)));

    p.fake.inlineQuery({ from: ben, query: 'zzqx-nothing-like-it' });
    const none = await until(() => p.fake.inlineAnswers().at(2), 'the third inline answer');
    expect(none.results).toEqual([]);
  });
});

describe('who sees what', () => {
  it('sends help asked in a group to the person’s private chat, with a note in the group that goes away', async () => {
    const [note] = await ask(group, ben, '/pol help');
    expect(words(note!)).toContain('sent to you in a private chat');
    const help = await until(() => botMessages(ben.id).find((m) => words(m).includes('/pol compare')), 'help in private');
    expect(words(help)).toContain('lower is safer');
    // Nothing of help's length stays in the group.
    await until(
      () => (p.fake.messages(group).find((m) => m.messageId === note!.messageId)?.deleted ? true : undefined),
      'the note deleted',
    );
    expect(
      botMessages(group)
        .filter((m) => !m.deleted)
        .some((m) => words(m).includes('/pol compare')),
    ).toBe(false);
  });

  it('offers a person polbot cannot write to first a button that opens the private chat', async () => {
    const [note] = await ask(group, stranger, '/pol help');
    expect(buttonsOf(note!)).toEqual([{ text: 'Open a private chat', url: `https://t.me/${p.fake.bot.username}?start=help` }]);
    await until(
      () => (p.fake.messages(group).find((m) => m.messageId === note!.messageId)?.deleted ? true : undefined),
      'the note deleted',
    );
  });

  it('answers a mistake in a group with a short reply to the person, deleted after a while', async () => {
    const [mistake] = await ask(group, ben, '/pol compare');
    expect(words(mistake!).startsWith('⚠️')).toBe(true);
    expect(words(mistake!).length).toBeLessThan(400);
    await until(() => (p.fake.messages(group).find((m) => m.messageId === mistake!.messageId)?.deleted ? true : undefined), 'deleted');
  });

  it('keeps managing alerts in a group to its administrators, asked of Telegram', async () => {
    const [refusal] = await ask(group, ben, '/pol alert add kraken when pol above 50%');
    expect(words(refusal!)).toContain('not allowed');
    expect(words(refusal!)).toContain('the group’s administrators');
    expect(p.fake.calls('getChatMember').some((c) => Number(c.args.user_id) === ben.id)).toBe(true);
    const [added] = await ask(group, ana, '/pol alert add kraken when pol above 50%');
    expect(words(added!)).toMatch(/Alert rule #\d+ added/);
    // In her private chat, the chat is hers.
    const [own] = await ask(ben.id, ben, '/pol alert add kraken when pol above 50%');
    expect(words(own!)).toMatch(/Alert rule #\d+ added/);
  });

  it('takes an administrator posting as the group for one of its administrators, with no private chat to write to', async () => {
    // A group of its own: Telegram allows a bot 20 messages a minute in one group, and polbot keeps to it.
    const desk = p.fake.addGroup({ title: 'Anonymous desk', creator: ana, members: [ben] }).id;
    const said = p.fake.say({ chatId: desk, from: ana, text: '/pol alert add aave when pol above 60%', asGroup: true });
    const added = await until(() => botMessages(desk).find((m) => replyTo(m) === said.message.message_id), 'the answer');
    expect(words(added)).toMatch(/Alert rule #\d+ added/);
    expect(p.fake.calls('getChatMember').some((c) => Number(c.args.chat_id) === desk)).toBe(false);
    // Help is for one person, and this one has no private chat: the note offers to open one.
    const help = p.fake.say({ chatId: desk, from: ana, text: '/pol help', asGroup: true });
    const note = await until(() => botMessages(desk).find((m) => replyTo(m) === help.message.message_id), 'the note');
    expect(buttonsOf(note)).toEqual([{ text: 'Open a private chat', url: `https://t.me/${p.fake.bot.username}?start=help` }]);
  });

  it('answers a press someone may not make with a pop-up to them alone, and changes nothing', async () => {
    await ask(group, ana, '/pol alert add kraken when pol above 50%');
    const [list] = await ask(group, ana, '/pol alert list');
    // Testing a rule posts a sample alert to the group: for its administrators.
    const test = buttonsOf(list!).find((b) => /^c=alert test \d+$/.test(b.callback_data ?? ''));
    expect(test).toBeDefined();
    const before = botMessages(group).length;
    const pressed = p.fake.pressButton({ chatId: group, messageId: list!.messageId, from: ben, data: test!.callback_data! });
    const answer = await until(() => p.fake.callbackAnswers().find((a) => a.queryId === pressed.query.id), 'the pop-up');
    expect(answer).toMatchObject({ showAlert: true, text: expect.stringContaining('not allowed') });
    const ruleId = Number(/\d+$/.exec(test!.callback_data!)![0]);
    expect(await p.alerts.store.getInChannel(ruleId, 'telegram', String(group))).toMatchObject({ state: 'active' });
    expect(botMessages(group).length).toBe(before);
  });

  it('checks the names a message mentions when /pol check replies to it', async () => {
    const said = p.fake.say({ chatId: group, from: ben, text: 'Moving my stack from kraken to pepe tonight' });
    const reply = p.fake.say({ chatId: group, from: ana, text: '/pol check', replyTo: said.message.message_id });
    // A check is for the person who asked: it arrives in their private chat, a note says so in the group.
    const note = await until(() => botMessages(group).find((m) => replyTo(m) === reply.message.message_id), 'the note');
    expect(words(note)).toContain('sent to you in a private chat');
    const answer = await until(
      () => botMessages(ana.id).find((m) => words(m).includes('Pepe') && words(m).includes('Kraken')),
      'the check',
    );
    expect(words(answer)).toContain(polText(last(p.sim.exchange('kraken')!.pol)));
    expect(words(answer)).toContain(polText(last(p.sim.project('pepe')!.pol)));
  });

  it('understands plain words in a private chat', async () => {
    const kraken = p.sim.exchange('kraken')!;
    const answer = await ask(ben.id, ben, 'is kraken safe?');
    expect(answer.map(words).join('\n')).toContain(polText(last(kraken.pol)));
  });
});
