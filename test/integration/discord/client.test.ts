import { once } from 'node:events';
import { Events } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHOOSE_ID, RUN_ID, ratingColour } from '../../../adapters/discord/embeds.js';
import { ratingForPol } from '../../../src/sim/data/scales.js';
import type { SimStore } from '../../../src/sim/data/store.js';
import type { Caller } from '../../../commands/kit/context.js';
import type { Invocation } from '../../../commands/kit/spec.js';
import type { CommandRef } from '../../../src/reply/model.js';
import type { InteractionHandle, RecordedCall } from '../../fakes/discord/index.js';
import { GUILD_ID, last, messageBody, messageCalls, startStack, type Stack } from '../../helpers/discord.js';
import { countText, polText, ppText, scoreText, usdText } from '../../helpers/truth.js';

const EPHEMERAL = 64;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const MANAGE_GUILD = String(1n << 5n);

interface Embed {
  title?: string;
  description?: string;
  color?: number;
  author?: { name: string };
  fields?: { name: string; value: string; inline?: boolean }[];
  image?: { url: string };
  footer?: { text: string };
}
interface Body {
  content?: string;
  flags?: number;
  embeds?: Embed[];
  components?: {
    type: number;
    components: {
      type: number;
      custom_id: string;
      placeholder?: string;
      options?: { label: string; value: string; default?: boolean }[];
    }[];
  }[];
  attachments?: { id: string | number; filename?: string }[];
  allowed_mentions?: unknown;
}

const body = (call: RecordedCall) => (messageBody(call) ?? {}) as Body;
/** Where an ephemeral answer ended up: the edited deferral (fast answers) or a follow-up (slow ones). */
async function privateAnswer(h: InteractionHandle): Promise<{ content: string; ephemeral: boolean }> {
  const deferral = await h.callback();
  const deferredPrivate = (((deferral.data as Body | undefined)?.flags ?? 0) & EPHEMERAL) !== 0;
  const call = deferredPrivate ? await h.waitForEdit(10_000) : await h.waitForFollowup(10_000);
  const flags = deferredPrivate ? (h.original()?.flags ?? 0) : (body(call).flags ?? 0);
  return { content: body(call).content ?? '', ephemeral: (flags & EPHEMERAL) !== 0 };
}

const field = (embed: Embed | undefined, name: string) => embed?.fields?.find((f) => f.name === name);

let stack: Stack;
let store: SimStore;
/** Who the adapter said asked, per command text, latest first. */
const callers: { text: string; invocation: Invocation; caller: Caller | undefined }[] = [];
const callerOf = (text: string) => callers.find((c) => c.text === text)?.caller;

beforeAll(async () => {
  // Long enough for a card to come through a 5 s upstream delay; rate limits have their own test.
  stack = await startStack({ POL_TIMEOUT_MS: '8000', RATE_LIMIT_PER_USER: '0' });
  store = stack.core.upstream.sim!.store;
  // Discord hands the core typed invocations; recorded here with their typed form, for reading.
  const invoke = stack.core.invoke.bind(stack.core);
  stack.core.invoke = (invocation, caller) => {
    callers.unshift({ text: stack.core.registry.text(invocation as CommandRef), invocation, caller });
    return invoke(invocation, caller);
  };
  // The adapter starts loading the lists itself; waiting here makes the tests independent of timing.
  await Promise.all([stack.core.upstream.source.list('project'), stack.core.upstream.source.list('exchange')]);
});

afterAll(async () => {
  await stack?.close();
});

describe('Discord adapter on the real discord.js client', () => {
  it('connects with no privileged intent and never lets a message mention anyone', () => {
    expect(stack.fake.identifies).toHaveLength(1);
    // Guilds (1), guild messages (1 << 9) and direct messages (1 << 12): the messages that mention
    // polbot and its DMs, whose content comes without the privileged Message Content intent (1 << 15).
    expect(stack.fake.identifies[0]).toMatchObject({ intents: 1 | (1 << 9) | (1 << 12), tokenValid: true });
    expect(stack.handle.adapter.client.options.allowedMentions).toEqual({ parse: [] });
    expect(stack.handle.shards).toEqual({ ids: [0], count: 1 });
    expect(stack.handle.primary).toBe(true);
  });

  it('answers /pol card with an embed of the simulator numbers and the PNG chart attached and referenced', async () => {
    const e = store.exchange('kraken')!;
    const pol = last(e.pol);
    const h = stack.fake.sendCommand({ name: 'pol', subcommand: 'card', options: { name: 'exchange:kraken' } });

    const deferral = await h.callback();
    expect(deferral.type).toBe(5);
    expect(((deferral.data as Body | undefined)?.flags ?? 0) & EPHEMERAL).toBe(0);

    const edit = await h.waitForEdit(10_000);
    const embed = body(edit).embeds?.[0];
    expect(embed?.title).toBe('Kraken');
    expect(embed?.author?.name).toBe('Exchange');
    expect(embed?.color).toBe(ratingColour(ratingForPol(pol)));

    const headline = field(embed, 'Probability of Loss (lower is safer)');
    expect(headline?.value).toContain(`**${polText(pol)}**`);
    expect(headline?.value).toContain(`rating **${ratingForPol(pol)}**`);
    expect(headline?.value).toContain(ppText(pol - e.pol[e.pol.length - 31]!));

    const scores = field(embed, 'Category quality scores (higher is better)');
    expect(scores?.value).toContain(`Security: **${scoreText(last(e.categories.security.scores))}**`);
    expect(scores?.value).toContain(`Solvency: **${scoreText(last(e.categories.solvency.scores))}**`);
    expect(field(embed, 'Reserves')?.value).toContain(`Reserves: **${usdText(last(e.reserves))}**`);
    expect(embed?.footer?.text).toMatch(/^as of \d{4}-\d\d-\d\d \d\d:\d\d UTC · source REST · SIMULATED DATA$/);

    // The PNG goes up with the edit and the embed points at it by name.
    expect(edit.files).toHaveLength(1);
    const file = edit.files[0]!;
    expect(file.contentType).toBe('image/png');
    expect(file.bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(embed?.image?.url).toBe(`attachment://${file.name}`);
    expect(body(edit).attachments).toEqual([expect.objectContaining({ id: '0' })]);
    expect(body(edit).allowed_mentions).toEqual({ parse: [] });

    // Stored by the platform as a public reply with the attachment resolved.
    const stored = h.original();
    expect((stored?.flags ?? 0) & EPHEMERAL).toBe(0);
    expect(stored?.attachments[0]?.filename).toBe(file.name);
  });

  it('defers within 3 s while the upstream takes 5 s, then edits the card in', async () => {
    const sim = stack.core.upstream.sim!;
    const p = store.project('lido-dao')!;
    sim.faults.set({ latencyMs: 5_000 });
    try {
      const sentAt = Date.now();
      const h = stack.fake.sendCommand({ name: 'pol', subcommand: 'card', options: { name: 'project:lido-dao' } });
      const deferral = await h.callback(3_000);
      expect(deferral.type).toBe(5);
      expect(deferral.call.at - sentAt).toBeLessThan(3_000);
      expect(deferral.call.status).toBe(204);

      const edit = await h.waitForEdit(15_000);
      expect(edit.at - sentAt).toBeGreaterThanOrEqual(5_000);
      const embed = body(edit).embeds?.[0];
      expect(embed?.title).toBe(`${p.name} (${p.ticker})`);
      expect(field(embed, 'Probability of Loss (lower is safer)')?.value).toContain(`**${polText(last(p.pol))}**`);
    } finally {
      sim.faults.reset();
    }
  });

  it('autocompletes from the cached lists within 3 s while the upstream is slow: at most 25, labelled, best first', async () => {
    const sim = stack.core.upstream.sim!;
    sim.faults.set({ latencyMs: 5_000 });
    const before = sim.counter.total;
    try {
      const sentAt = Date.now();
      const h = stack.fake.sendAutocomplete({ name: 'pol', subcommand: 'card', options: { name: 'b' }, focused: 'name' });
      const cb = await h.callback(3_000);
      expect(cb.call.at - sentAt).toBeLessThan(3_000);
      expect(cb.type).toBe(8);
      const choices = (cb.data as { choices: { name: string; value: string }[] }).choices;
      expect(choices.length).toBeGreaterThan(0);
      expect(choices.length).toBeLessThanOrEqual(25);
      for (const c of choices) {
        const [kind, slug] = c.value.split(':') as ['project' | 'exchange', string];
        expect(c.name).toMatch(/ · (project|exchange)$/);
        expect(c.name.endsWith(` · ${kind}`)).toBe(true);
        expect(store.entity(kind, slug), c.value).toBeDefined();
      }

      const exact = await stack.fake
        .sendAutocomplete({ name: 'pol', subcommand: 'card', options: { name: 'bitcoin' }, focused: 'name' })
        .callback(3_000);
      expect((exact.data as { choices: { name: string; value: string }[] }).choices[0]).toEqual({
        name: 'Bitcoin (BTC) · project',
        value: 'project:bitcoin',
      });

      // Flags are about projects: no exchange is offered there.
      const flags = await stack.fake
        .sendAutocomplete({ name: 'pol', subcommand: 'flags', options: { name: 'dydx' }, focused: 'name' })
        .callback(3_000);
      const flagChoices = (flags.data as { choices: { value: string }[] }).choices;
      expect(flagChoices.map((c) => c.value)).toContain('project:dydx');
      expect(flagChoices.every((c) => c.value.startsWith('project:'))).toBe(true);

      // Compare slots complete too, and none of this waited on the upstream.
      const slot = await stack.fake
        .sendAutocomplete({ name: 'pol', subcommand: 'compare', options: { a: 'binance', b: 'kra' }, focused: 'b' })
        .callback(3_000);
      expect((slot.data as { choices: { value: string }[] }).choices[0]?.value).toBe('exchange:kraken');
      expect(Date.now() - sentAt).toBeLessThan(3_000);
      // Answered from the cache alone: the upstream was not asked anything.
      expect(sim.counter.total).toBe(before);
    } finally {
      sim.faults.reset();
    }
  });

  it('offers an ambiguous name as an ephemeral select menu and shows only the chosen entity', async () => {
    const { fake, channelId } = stack;
    const chosen = store.project('shibaswap')!;
    const other = store.project('shiba-inu')!;
    const h = fake.sendCommand({ name: 'pol', subcommand: 'card', options: { name: 'shiba' } });

    // The core answers from cached lists at once, so the deferral itself is ephemeral.
    const deferral = await h.callback();
    expect(deferral.type).toBe(5);
    expect((deferral.data as Body).flags).toBe(EPHEMERAL);
    const edit = await h.waitForEdit();
    const menu = body(edit).components?.[0]?.components[0];
    expect(menu).toMatchObject({ type: 3, custom_id: CHOOSE_ID });
    // Each value is the command itself, decoded straight into arguments when chosen.
    expect(menu?.options?.map((o) => o.value).sort()).toEqual(['card?name=project%3Ashiba-inu', 'card?name=project%3Ashibaswap']);
    expect(body(edit).content).toContain('shiba');
    const prompt = h.original()!;
    expect((prompt.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);

    const pick = fake.sendComponent({
      custom_id: CHOOSE_ID,
      component_type: 3,
      values: ['card?name=project%3Ashibaswap'],
      message: prompt,
    });
    const update = await pick.callback();
    expect(update.type).toBe(7);
    expect(update.data).toMatchObject({ components: [] });

    const card = await pick.waitForFollowup(10_000);
    const embed = body(card).embeds?.[0];
    expect(embed?.title).toBe(`${chosen.name} (${chosen.ticker})`);
    expect(field(embed, 'Probability of Loss (lower is safer)')?.value).toContain(`**${polText(last(chosen.pol))}**`);
    expect((body(card).flags ?? 0) & EPHEMERAL).toBe(0);
    const confirmation = await pick.waitForEdit(5_000);
    expect(body(confirmation).content).toBe(`Shown: ${chosen.name}`);

    // What the channel sees: the chosen card, and nothing anywhere about the entity nobody chose.
    const messages = fake.messages(channelId);
    const publicTitles = messages.filter((m) => ((m.flags ?? 0) & EPHEMERAL) === 0).flatMap((m) => m.embeds.map((x) => x.title));
    expect(publicTitles).toContain(`${chosen.name} (${chosen.ticker})`);
    const everything = JSON.stringify(messages.filter((m) => m.id !== prompt.id));
    expect(everything).not.toContain(other.name);
    expect(everything).not.toContain(`${other.ticker})`);
  });

  it('answers /pol section with the quality score, and the project card carries every section as a button', async () => {
    const pepe = store.project('pepe')!;
    const h = stack.fake.sendCommand({ name: 'pol', subcommand: 'section', options: { name: 'pepe', section: 'voice' } });
    const edit = await h.waitForEdit(10_000);
    const embed = body(edit).embeds?.[0];
    expect(embed?.title).toBe('Pepe (PEPE): Proof of Voice');
    expect(field(embed, 'Proof of Voice score (higher is better)')?.value).toContain(`**${scoreText(last(pepe.voiceScores))} / 100**`);
    // A quality score is never labelled as the PoL.
    expect(embed?.fields?.map((f) => f.name).join('|')).not.toMatch(/Probability of Loss|PoL/);
    expect(edit.files[0]?.contentType).toBe('image/png');

    const card = stack.fake.sendCommand({ name: 'pol', subcommand: 'card', options: { name: 'pepe', section: 'regulatory' } });
    const regulatory = body(await card.waitForEdit(10_000)).embeds?.[0];
    expect(regulatory?.title).toBe('Pepe (PEPE): Regulatory');
    expect(field(regulatory, 'Regulatory quality score (higher is better)')?.value).toContain(
      `**${scoreText(last(pepe.categories.regulatory.scores))} / 100**`,
    );

    const project = stack.fake.sendCommand({ name: 'pol', subcommand: 'project', options: { name: 'pepe' } });
    const rows = body(await project.waitForEdit(10_000)).components ?? [];
    expect(rows.length).toBeGreaterThan(1);
    for (const row of rows) expect(row.components.length).toBeLessThanOrEqual(5);
    const ids = rows.flatMap((r) => r.components.map((c) => c.custom_id));
    for (const section of ['security', 'financial', 'operational', 'reputational', 'regulatory', 'voice']) {
      expect(ids).toContain(`${RUN_ID}:section?name=project%3Apepe&section=${section}`);
    }
    const click = stack.fake.sendComponent({ custom_id: `${RUN_ID}:section?name=project%3Apepe&section=security`, component_type: 2 });
    const security = body(await click.waitForEdit(10_000)).embeds?.[0];
    expect(security?.title).toBe('Pepe (PEPE): Security');
    expect(field(security, 'Security quality score (higher is better)')?.value).toContain(
      `**${scoreText(last(pepe.categories.security.scores))} / 100**`,
    );
  });

  it('answers each of the six sections of a project with its quality score and what stands behind it', async () => {
    const aave = store.project('aave')!;
    const reviews = aave.voice.reviews === 'none_identified' ? [] : aave.voice.reviews;
    const facts: Record<string, { title: string; scores: number[]; shown: string[] }> = {
      security: { title: 'Security', scores: aave.categories.security.scores, shown: aave.audits.map((a) => a.auditor) },
      financial: { title: 'Financial', scores: aave.categories.financial.scores, shown: [usdText(aave.market.marketCap)] },
      operational: {
        title: 'Operational',
        scores: aave.categories.operational.scores,
        shown: [`Commits, last 7 days: **${countText(aave.github.commitsCount7d)}**`, aave.launchedAt],
      },
      reputational: { title: 'Reputational', scores: aave.categories.reputational.scores, shown: [] },
      regulatory: {
        title: 'Regulatory',
        scores: aave.categories.regulatory.scores,
        shown: [`tier ${aave.registration.jurisdictionQuality}`, aave.registration.jurisdiction],
      },
      voice: { title: 'Proof of Voice', scores: aave.voiceScores, shown: reviews.slice(0, 1).map((r) => r.author) },
    };
    for (const [section, expected] of Object.entries(facts)) {
      const h = stack.fake.sendCommand({ name: 'pol', subcommand: 'section', options: { name: 'aave', section } });
      const embed = body(await h.waitForEdit(10_000)).embeds?.[0];
      expect(embed?.title).toBe(`Aave (AAVE): ${expected.title}`);
      expect(field(embed, `${expected.title} ${section === 'voice' ? 'score' : 'quality score'} (higher is better)`)?.value).toContain(
        `**${scoreText(last(expected.scores))} / 100**`,
      );
      const text = (embed?.fields ?? []).map((f) => `${f.name}\n${f.value}`).join('\n');
      for (const fact of expected.shown) expect(text).toContain(fact);
    }
  });

  it('answers the sections and dashboard of an exchange, solvency with its reserves chart', async () => {
    const e = store.exchange('binance')!;
    const cases: { section: string; title: string; field: string; value: string }[] = [
      {
        section: 'transparency',
        title: 'Transparency',
        field: 'Transparency quality score (higher is better)',
        value: `**${scoreText(last(e.categories.transparency.scores))} / 100**`,
      },
      {
        section: 'security',
        title: 'Security',
        field: 'Security quality score (higher is better)',
        value: `**${scoreText(last(e.categories.security.scores))} / 100**`,
      },
      {
        section: 'solvency',
        title: 'Solvency',
        field: 'Reserves against liabilities',
        value: `Reserves: **${usdText(last(e.reserves))}**`,
      },
      { section: 'dashboard', title: 'Dashboard', field: 'Probability of Loss (lower is safer)', value: `**${polText(last(e.pol))}**` },
    ];
    for (const c of cases) {
      const h = stack.fake.sendCommand({ name: 'pol', subcommand: 'exchange', options: { name: 'binance', section: c.section } });
      const edit = await h.waitForEdit(10_000);
      const embed = body(edit).embeds?.[0];
      expect(embed?.title).toBe(`Binance: ${c.title}`);
      expect(field(embed, c.field)?.value, c.section).toContain(c.value);
      if (c.section === 'solvency') expect(edit.files[0]?.contentType).toBe('image/png');
    }
  });

  it('answers listed assets a page at a time, pages from the menu, and attaches the whole list as CSV', async () => {
    const e = store.exchange('kraken')!;
    const listed = e.listed.map((id) => store.data.tokens.find((t) => t.id === id)!).sort((a, b) => b.marketCap - a.marketCap);
    const h = stack.fake.sendCommand({ name: 'pol', subcommand: 'assets', options: { name: 'kraken' } });
    const edit = await h.waitForEdit(10_000);
    const text = JSON.stringify(body(edit));
    for (const t of listed.slice(0, 10)) expect(text).toContain(`${t.name} (${t.ticker})`);
    expect(text).toContain(polText(listed[0]!.polScore));
    const rows = body(edit).components ?? [];
    const show = rows.at(-1)!.components[0]!;
    const next = show.options!.find((o) => o.label === 'Next page')!;
    const second = stack.fake.sendComponent({ custom_id: show.custom_id, component_type: 3, values: [next.value] });
    const secondText = JSON.stringify(body(await second.waitForEdit(10_000)));
    for (const t of listed.slice(10, 20)) expect(secondText).toContain(`${t.name} (${t.ticker})`);

    const exported = stack.fake.sendCommand({
      name: 'pol',
      subcommand: 'assets',
      options: { name: 'kraken', filters: 'sort=polScore order=asc export=csv' },
    });
    const withFile = await exported.waitForEdit(10_000);
    const csv = withFile.files.find((f) => f.name === 'assets-kraken.csv')!;
    const [header, ...lines] = csv.bytes.toString('utf8').trim().split('\n');
    expect(header).toBe('name,ticker,categories,market_cap_usd,pol');
    const byPol = [...listed].sort((a, b) => a.polScore - b.polScore);
    expect(lines.map((l) => l.split(','))).toEqual(
      byPol.map((t) => [t.name, t.ticker, t.category, String(t.marketCap), String(t.polScore)]),
    );
  });

  it('answers /pol lost-funds with its chart, and exchange ratings by listed token with tickers from autocomplete', async () => {
    const incidents = store.data.lostFunds;
    const h = stack.fake.sendCommand({ name: 'pol', subcommand: 'lost-funds' });
    const edit = await h.waitForEdit(10_000);
    expect(JSON.stringify(body(edit))).toContain(usdText(incidents.reduce((sum, i) => sum + i.amountUsd, 0)));
    expect(edit.files[0]?.contentType).toBe('image/png');

    const choicesOf = async (filters: string) => {
      const cb = await stack.fake
        .sendAutocomplete({ name: 'pol', subcommand: 'ratings', options: { list: 'exchanges', filters }, focused: 'filters' })
        .callback(3_000);
      return ((cb.data as { choices?: { value: string }[] }).choices ?? []).map((c) => c.value);
    };
    // The token list loads in the background on the first keystroke; the next one offers it.
    await choicesOf('listed_tokens=');
    await stack.core.upstream.source.ratingTokens();
    expect((await choicesOf('listed_tokens=ether'))[0]).toBe('listed_tokens=ETH');

    const eth = store.data.tokens.find((t) => t.ticker === 'ETH')!;
    const listing = store.data.exchanges.filter((x) => x.listed.includes(eth.id)).sort((a, b) => last(a.pol) - last(b.pol));
    const ratings = stack.fake.sendCommand({
      name: 'pol',
      subcommand: 'ratings',
      options: { list: 'exchanges', filters: 'listed_tokens=ETH sort=pol order=asc' },
    });
    const ratingsText = JSON.stringify(body(await ratings.waitForEdit(10_000))).replaceAll('\\\\_', '_');
    expect(ratingsText).toContain(
      `listed_tokens=ETH sort=pol order=asc · page 1 of ${Math.ceil(listing.length / 10)} · ${listing.length} exchanges`,
    );
    for (const x of listing.slice(0, 10)) expect(ratingsText).toContain(polText(last(x.pol)));
  });

  it('answers /pol why with the metrics behind the PoL and their chart', async () => {
    const pepe = store.project('pepe')!;
    const h = stack.fake.sendCommand({ name: 'pol', subcommand: 'why', options: { name: 'pepe' } });
    const edit = await h.waitForEdit(10_000);
    const embed = body(edit).embeds?.[0];
    expect(embed?.title).toBe('Why this PoL: Pepe');
    expect(field(embed, 'Probability of Loss (lower is safer)')?.value).toContain(`**${polText(last(pepe.pol))}**`);
    // Pepe's weakest heavy metric, from the dataset: smart-contract audits.
    expect(field(embed, 'Pushing PoL up (higher is better)')?.value).toMatch(/^Smart-contract audits: \*\*\d+(\.\d)? \/ 100\*\*/);
    expect(edit.files[0]?.contentType).toBe('image/png');
  });

  it('charts any window of dates given as options', async () => {
    const h = stack.fake.sendCommand({
      name: 'pol',
      subcommand: 'chart',
      options: { name: 'bitcoin', from: '2026-03-01', to: '2026-06-30' },
    });
    const edit = await h.waitForEdit(10_000);
    expect(body(edit).embeds?.[0]?.title).toBe('Bitcoin: Probability of Loss (lower is safer), 2026-03-01 to 2026-06-30');
    expect(edit.files[0]?.contentType).toBe('image/png');
    const wrong = stack.fake.sendCommand({
      name: 'pol',
      subcommand: 'chart',
      options: { name: 'bitcoin', from: '2026-06-30', to: '2026-03-01' },
    });
    const answer = await wrong.waitForEdit(10_000).catch(() => undefined);
    const text = JSON.stringify(answer ? body(answer) : await wrong.callback());
    expect(text).toContain('The dates run backwards');
  });

  it('answers /pol ratings with the filters given as one option, checked against the service', async () => {
    const defi = store.data.projects.filter((p) => p.category === 'DeFi').sort((a, b) => last(a.pol) - last(b.pol));
    const h = stack.fake.sendCommand({
      name: 'pol',
      subcommand: 'ratings',
      options: { list: 'projects', filters: 'categories=DeFi sort=pol order=asc' },
    });
    const edit = await h.waitForEdit(10_000);
    const text = JSON.stringify(body(edit));
    expect(text).toContain('Ratings of projects');
    expect(text).toContain(defi[0]!.name);
    expect(text).toContain(polText(last(defi[0]!.pol)));

    // The filters the service lists as menus (the 45 chains are left to autocomplete), the ones in force picked.
    const rows = body(edit).components ?? [];
    const menus = rows.map((r) => r.components[0]!).filter((c) => c.custom_id.startsWith('pol:run:menu-'));
    expect(menus.map((m) => m.placeholder)).toEqual(['Categories', 'Market cap', 'Compliance', 'Sort by']);
    expect(rows.at(-1)?.components[0]?.placeholder).toBe('Show one…');
    const categories = menus[0]!.options!;
    expect(categories.find((o) => o.default)?.label).toBe('DeFi');
    const large = menus[1]!.options!.find((o) => o.label === 'large')!;
    const picked = stack.fake.sendComponent({ custom_id: menus[1]!.custom_id, component_type: 3, values: [large.value] });
    // Markdown escapes the underscore in `market_cap`; what the person reads has none.
    const pickedText = JSON.stringify(body(await picked.waitForEdit(10_000))).replaceAll('\\\\_', '_');
    const largeDefi = defi.filter((p) => p.market.marketCap >= 10e9);
    expect(pickedText).toContain(`market_cap=large · page 1 of ${Math.ceil(largeDefi.length / 10)} · ${largeDefi.length} projects`);
    for (const p of largeDefi.slice(0, 10)) expect(pickedText).toContain(polText(last(p.pol)));

    // Autocomplete offers the service's own filter names, then that filter's values, keeping what came before.
    const choicesOf = async (filters: string) => {
      const cb = await stack.fake
        .sendAutocomplete({ name: 'pol', subcommand: 'ratings', options: { list: 'projects', filters }, focused: 'filters' })
        .callback(3_000);
      return ((cb.data as { choices?: { value: string }[] }).choices ?? []).map((c) => c.value);
    };
    expect(await choicesOf('cat')).toEqual(['categories=']);
    expect(await choicesOf('categories=DeFi ch')).toEqual(['categories=DeFi chains=']);
    expect(await choicesOf('categories=DeFi chains=bnb')).toEqual(['categories=DeFi chains="BNB Chain"']);
    expect(await choicesOf('sort=')).toEqual(['sort=rank', 'sort=name', 'sort=pol', 'sort=marketCap']);

    const exported = stack.fake.sendCommand({
      name: 'pol',
      subcommand: 'ratings',
      options: { list: 'projects', filters: 'categories=DeFi sort=pol order=asc export=csv' },
    });
    const withFile = await exported.waitForEdit(10_000);
    const csv = withFile.files.find((f) => f.name === 'ratings-projects.csv')!;
    const lines = csv.bytes.toString('utf8').trim().split('\n');
    expect(lines[0]).toBe('rank,slug,name,ticker,pol,rating,market_cap_usd');
    expect(lines.slice(1).map((l) => Number(l.split(',')[4]))).toEqual(defi.map((p) => last(p.pol)));
  });

  it('runs a card’s buttons as new public answers, and holds digest commands to the admin bar', async () => {
    const { fake } = stack;
    const chart = fake.sendComponent({ custom_id: `${RUN_ID}:chart?name=exchange%3Akraken&range=365d&kind=pol`, component_type: 2 });
    const deferral = await chart.callback();
    expect(deferral.type).toBe(5);
    expect(((deferral.data as Body | undefined)?.flags ?? 0) & EPHEMERAL).toBe(0);
    const edit = await chart.waitForEdit(10_000);
    expect(body(edit).embeds?.[0]?.title).toContain('Kraken');
    expect(body(edit).embeds?.[0]?.image?.url).toBe(`attachment://${edit.files[0]?.name}`);

    // A button or menu carries no command permissions: managing digests through one takes Manage Server.
    const sneaky = fake.sendComponent({ custom_id: `${RUN_ID}:digest-remove?id=1`, component_type: 2 });
    await privateAnswer(sneaky);
    expect(callerOf('digest remove 1')).toEqual({
      platform: 'discord',
      userId: fake.defaultUser.id,
      userName: fake.defaultUser.global_name ?? fake.defaultUser.username,
      channelId: stack.channelId,
      workspaceId: GUILD_ID,
      canManageDigests: false,
      // The server's roles, for an escalation to name.
      groups: { find: expect.any(Function) },
    });
    const manager = fake.sendComponent({ custom_id: `${RUN_ID}:digest-list`, component_type: 2, memberPermissions: MANAGE_GUILD });
    expect((await privateAnswer(manager)).content).toContain('delivered to Slack, Discord or Telegram chats');
    expect(callerOf('digest list')?.canManageDigests).toBe(true);

    // A menu whose long commands were forgotten (a restart) says so instead of guessing.
    const stale = fake.sendComponent({ custom_id: CHOOSE_ID, component_type: 3, values: ['~gone'] });
    expect(await stale.callback()).toMatchObject({ type: 7, data: { content: expect.stringContaining('expired'), components: [] } });
  });

  it('moves a late choice from the public deferral to an ephemeral follow-up', async () => {
    const { core } = stack;
    const sim = core.upstream.sim!;
    // Without cached lists the resolver has to ask the upstream, so the answer is slow.
    core.upstream.source.cache.clear();
    sim.faults.set({ latencyMs: 800 });
    try {
      const h = stack.fake.sendCommand({ name: 'pol', subcommand: 'card', options: { name: 'shiba' } });
      const deferral = await h.callback();
      expect(deferral.type).toBe(5);
      expect(((deferral.data as Body | undefined)?.flags ?? 0) & EPHEMERAL).toBe(0);

      const followup = await h.waitForFollowup(10_000);
      expect(body(followup).flags).toBe(EPHEMERAL);
      expect(body(followup).components?.[0]?.components[0]?.custom_id).toBe(CHOOSE_ID);
      // The public "thinking" message was removed before the private one was sent.
      const deleted = stack.fake.calls(
        (c) => c.method === 'DELETE' && c.path === `/webhooks/${stack.fake.applicationId}/${h.token}/messages/@original`,
      );
      expect(deleted).toHaveLength(1);
      expect(deleted[0]!.status).toBe(204);
      expect(deleted[0]!.at).toBeLessThanOrEqual(followup.at);
      expect(h.originalEdits()).toHaveLength(0);
    } finally {
      sim.faults.reset();
      await Promise.all([core.upstream.source.list('project'), core.upstream.source.list('exchange')]);
    }
  });

  it('answers errors ephemerally, in plain words', async () => {
    const { fake, core } = stack;
    const digest = fake.sendCommand({ name: 'pol-digest', subcommand: 'list', memberPermissions: MANAGE_GUILD });
    expect(((await digest.callback()).data as Body).flags).toBe(EPHEMERAL);
    expect(body(await digest.waitForEdit()).content).toContain('delivered to Slack, Discord or Telegram chats');
    // Discord gated /pol-digest; arriving through it is what lets someone manage digests.
    expect(callerOf('digest list')).toEqual({
      platform: 'discord',
      userId: fake.defaultUser.id,
      userName: fake.defaultUser.global_name ?? fake.defaultUser.username,
      channelId: stack.channelId,
      workspaceId: GUILD_ID,
      canManageDigests: true,
      // The server's roles, for an escalation to name.
      groups: { find: expect.any(Function) },
    });
    expect(callerOf('exchange:kraken')?.canManageDigests).toBe(false);

    const unknown = fake.sendCommand({ name: 'pol', subcommand: 'card', options: { name: 'project:no-such-project' } });
    const answer = await privateAnswer(unknown);
    expect(answer.ephemeral).toBe(true);
    expect(answer.content).toMatch(/^⚠️ /);
    expect(answer.content).not.toMatch(/svc_|stack|Error:|at \w+ \(|\/v1\//);
    for (const secret of core.upstream.secrets) expect(answer.content).not.toContain(secret);

    // Options reach the core as they were given: a name ending in a range word stays the name.
    const odd = fake.sendCommand({ name: 'pol', subcommand: 'chart', options: { name: 'bitcoin all', range: '30d' } });
    await privateAnswer(odd);
    expect(callers.find((c) => c.invocation.command === 'chart')?.invocation.args).toEqual({ name: 'bitcoin all', range: '30d' });
  });

  it('lists help as the slash commands registered with Discord, with their options, not as typed in Slack', async () => {
    const { fake } = stack;
    const h = fake.sendCommand({ name: 'pol', subcommand: 'help' });
    const embed = body(await h.waitForEdit(10_000)).embeds?.[0];
    // An embed holds 6,000 characters: the digest and alert commands follow in messages of their own, for the asker alone.
    await h.waitForFollowup(10_000, () => h.followups().length >= 2);
    const more = h.followups().map((c) => body(c));
    expect(more.map((m) => [m.embeds?.[0]?.title, m.flags])).toEqual([
      ['Digest commands', 64],
      ['Alert commands', 64],
    ]);
    const shown = [embed, ...more.map((m) => m.embeds?.[0])].flatMap((e) => (e?.fields ?? []).map((f) => f.value)).join('\n');
    expect(embed?.title).toContain('polbot');
    // Every subcommand Discord holds for this server, with each required option as `name:`.
    const registered = fake.commands(GUILD_ID);
    expect(registered.map((c) => c.name).sort()).toEqual(['Check with polbot', 'pol', 'pol-alert', 'pol-digest']);
    for (const command of registered) {
      for (const sub of command.options ?? []) {
        const required = ('options' in sub ? (sub.options ?? []) : [])
          .filter((o) => 'required' in o && o.required)
          .map((o) => ` \`${o.name}:\``);
        // A command mention, which Discord shows as the command itself, ready to run.
        expect(shown).toContain(`</${command.name} ${sub.name}:${command.id}>${required.join('')}`);
      }
    }
    const pol = registered.find((c) => c.name === 'pol')!.id;
    const digest = registered.find((c) => c.name === 'pol-digest')!.id;
    expect(shown).toContain(`</pol chart:${pol}> \`name:\` \`[range:]\` \`[kind:]\` \`[from:]\` \`[to:]\` \`[last:]\` — A chart over time`);
    expect(shown).toContain(`</pol-digest add:${digest}> \`names:\` \`[schedule:]\` \`[day:]\` \`[cron:]\` \`[at:]\` \`[tz:]\``);
    // Each command's examples, as the options to fill in, under it; a command without options has none.
    expect(shown).toContain(
      `</pol section:${pol}> \`name:\` \`section:\` — One section of a project or an exchange: its quality score (higher is better) and what stands behind it\ne.g. \`name: pepe\` \`section: security\` · \`name: aave\` \`section: financial\``,
    );
    expect(shown).toContain(`</pol health:${pol}> — Is the risk-data service up, and if not, what is wrong\n</pol help:${pol}>`);
    expect(shown).not.toContain('<name or slug>');
    expect(shown).not.toContain('/pol digest ');
    // Within Discord's 6,000 characters, examples of the last commands give way before anything
    // else: the explanation above the list is whole, and no command is left out.
    expect(embed?.description).toBe(
      'Probability of Loss (PoL) is the chance of losing funds: lower is safer. Category quality scores run 0–100: higher is better.',
    );
    expect(embed?.fields?.map((f) => f.name)).not.toContain('Not shown');
    expect(shown).toContain(`</pol exposure:${pol}> \`name:\` \`[window:]\``);
  });

  it('posts an answer for the channel with the bot token when the interaction token has expired', async () => {
    const { fake, channelId, core } = stack;
    const sim = core.upstream.sim!;
    // A slow answer: the deferral goes out, and the token's 15 minutes pass before the card is ready.
    sim.faults.set({ latencyMs: 600 });
    try {
      const before = fake.messages(channelId).length;
      const h = fake.sendCommand({ name: 'pol', subcommand: 'exchange', options: { name: 'exchange:okx' } });
      await h.callback();
      fake.advanceClock(15 * 60 * 1000 + 1);
      const posted = await fake.waitFor((c) => c.method === 'POST' && c.path === `/channels/${channelId}/messages`, 15_000);
      expect(posted.status).toBe(200);
      // Discord refused the expired token (10015), and the card reached the channel all the same.
      expect(fake.calls((c) => c.method === 'PATCH' && c.path.includes(h.token)).map((c) => c.status)).toEqual([404]);
      const card = fake
        .messages(channelId)
        .slice(before)
        .find((m) => m.embeds.some((e) => e.title === store.exchange('okx')!.name));
      expect(card).toBeDefined();
      expect(fake.calls((c) => c.method === 'POST' && c.path.startsWith(`/webhooks/${fake.applicationId}/${h.token}`))).toHaveLength(0);
    } finally {
      sim.faults.reset();
    }
  });

  it('tells the person, privately, when Discord refuses an answer, and logs no interaction token', async () => {
    const { fake, logLines } = stack;
    fake.failNext('PATCH /webhooks/:webhookId/:webhookToken/messages/:messageId', {
      status: 400,
      code: 50035,
      message: 'Invalid Form Body',
    });
    const h = fake.sendCommand({ name: 'pol', subcommand: 'index' });
    const followup = await h.waitForFollowup(10_000);
    expect(body(followup)).toMatchObject({ flags: EPHEMERAL, content: expect.stringContaining('Something went wrong') });
    const logged = logLines.filter((l) => l.includes('Invalid Form Body'));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('"code":50035');
    expect(logLines.join('')).not.toContain(h.token);
  });

  it('escapes upstream text: mentions, masked links and direction tricks do nothing', async () => {
    const hostile = '@everyone [free airdrop](https://evil.example) <@&123456789012345678> <@42> \u202Eexe.gnp';
    store.rename('project', 'pepe', hostile);
    const h = stack.fake.sendCommand({ name: 'pol', subcommand: 'card', options: { name: 'project:pepe' } });
    const edit = await h.waitForEdit(10_000);
    const title = body(edit).embeds?.[0]?.title ?? '';
    expect(title).toContain('free airdrop');
    expect(title).not.toContain('@everyone');
    expect(title).toContain('@\u200beveryone');
    expect(title).not.toMatch(/\]\(https/);
    expect(title).not.toMatch(/(^|[^\\])<@/);
    expect(title).not.toContain('\u202E');
    expect(body(edit).allowed_mentions).toEqual({ parse: [] });
  });

  it('posts any Reply to a channel for digests', async () => {
    const { fake, core, channelId, handle } = stack;
    const { reply } = await core.run('exchange:binance');
    const posted = await handle.postReply(channelId, reply);
    expect(posted.id).toMatch(/^\d+$/);
    const call = fake.calls({ method: 'POST', path: `/channels/${channelId}/messages` }).at(-1)!;
    expect(body(call).allowed_mentions).toEqual({ parse: [] });
    expect(body(call).embeds?.[0]?.title).toBe('Binance');
    expect(body(call).embeds?.[0]?.image?.url).toBe(`attachment://${call.files[0]?.name}`);
    const stored = fake.messages(channelId).find((m) => m.id === posted.id);
    expect(stored?.attachments).toHaveLength(1);
    expect(stored?.embeds[0]?.footer?.text).toContain('SIMULATED DATA');
  });

  it('comes back after the gateway closes the socket, and keeps answering', async () => {
    const { fake, handle } = stack;
    const client = handle.adapter.client;
    for (const code of [4000, 'abrupt'] as const) {
      const identifies = fake.identifyCount;
      const resumed = once(client, Events.ShardResume, { signal: AbortSignal.timeout(10_000) });
      fake.dropConnections(code);
      await resumed;
      expect(fake.identifyCount).toBe(identifies);
      const h = fake.sendCommand({ name: 'pol', subcommand: 'help' });
      expect((await h.callback()).type).toBe(5);
      expect(body(await h.waitForEdit()).embeds?.[0]?.title).toContain('polbot');
    }
    expect(fake.resumeCount).toBeGreaterThanOrEqual(2);
  });

  it('sends allowed_mentions that parse nothing with every message it creates or edits', () => {
    const calls = messageCalls(stack.fake);
    // Callbacks with content, edits, follow-ups and channel posts from the tests above.
    expect(calls.length).toBeGreaterThanOrEqual(12);
    for (const c of calls) expect(body(c).allowed_mentions, `${c.method} ${c.route}`).toEqual({ parse: [] });
  });

  it('keeps the bot token and the API key out of every payload and every log line', () => {
    const { fake, core, logLines } = stack;
    const secrets = [fake.token, ...core.upstream.secrets];
    expect(secrets.every((s) => s.length > 10)).toBe(true);
    expect(logLines.length).toBeGreaterThan(20);
    const logs = logLines.join('');
    for (const s of secrets) expect(logs).not.toContain(s);
    // Not even the part of the token discord.js's own debug output shows.
    expect(logs).toContain('Provided token: [token]');
    expect(logs).not.toContain(fake.token.split('.').slice(0, 2).join('.'));

    for (const c of fake.calls()) {
      const text = JSON.stringify(c.body ?? null) + c.files.map((f) => f.bytes.toString('latin1')).join('');
      for (const s of secrets) expect(text, `${c.method} ${c.path}`).not.toContain(s);
    }
    // The token is only ever a credential: the Authorization header and the gateway's IDENTIFY
    // and RESUME frames carry it by design. Nothing else may.
    const raw = fake
      .rawPayloads()
      .filter((p) => !/^GATEWAY [^\n]*\n\n\{"op":(2|6),/.test(p))
      .map((p) => p.replace(/^authorization: Bot .*$/m, ''));
    for (const s of secrets) for (const p of raw) expect(p).not.toContain(s);
    expect(fake.rawPayloads().join('\n')).not.toContain(core.upstream.secrets[0]!);
  });
});

describe('rate limits per Discord user', () => {
  it('refuses a person who asks too fast, privately, while others are still answered', async () => {
    const limited = await startStack({ RATE_LIMIT_PER_USER: '2', RATE_LIMIT_PER_CHANNEL: '100' });
    try {
      const alice = { id: '1100000000000000201', username: 'alice' };
      for (let n = 0; n < 2; n++) {
        const h = limited.fake.sendCommand({ name: 'pol', subcommand: 'help', user: alice });
        expect(body(await h.waitForEdit()).embeds?.[0]?.title).toContain('polbot');
      }
      const third = await privateAnswer(limited.fake.sendCommand({ name: 'pol', subcommand: 'help', user: alice }));
      expect(third).toMatchObject({ ephemeral: true, content: expect.stringContaining('faster than polbot answers') });
      const bob = limited.fake.sendCommand({ name: 'pol', subcommand: 'help', user: { id: '1100000000000000202', username: 'bob' } });
      expect(body(await bob.waitForEdit()).embeds?.[0]?.title).toContain('polbot');
    } finally {
      await limited.close();
    }
  });
});
