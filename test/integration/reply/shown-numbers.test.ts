import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReply as renderConsole } from '../../../adapters/console/render.js';
import { renderReply as renderDiscord } from '../../../adapters/discord/embeds.js';
import { renderReply as renderSlack } from '../../../adapters/slack/blocks.js';
import type { Core } from '../../../commands/core/core.js';
import type { Reply } from '../../../src/reply/model.js';
import type { SimEntity } from '../../../src/sim/data/model.js';
import type { SimStore } from '../../../src/sim/data/store.js';
import { demoCore } from '../../helpers/core.js';
import { polText, scoreText, showsPol } from '../../helpers/truth.js';

/**
 * Every number a score card shows for its entity, on every surface, against the simulator's
 * dataset: the PoL in the headline and each category quality score. Expected values come from the
 * dataset and test/helpers/truth.ts only, never from src/reply/format.ts.
 */

const last = <T>(a: readonly T[]): T => a[a.length - 1]!;
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What the dataset says an entity's card must show. */
interface Truth {
  ref: string;
  pol: number;
  scores: { label: string; score: number }[];
}

function truthOf(e: SimEntity): Truth {
  const categories = Object.entries(e.categories as Record<string, { scores: number[] }>);
  return {
    ref: `${e.kind}:${e.slug}`,
    pol: last(e.pol),
    scores: categories.map(([name, c]) => ({ label: cap(name), score: last(c.scores) })),
  };
}

/** The parts of one surface's rendering of a card that carry the numbers under test. */
interface Shown {
  /** Each place the headline PoL is shown (the message itself, and for Slack its notification text). */
  headline: { where: string; text: string }[];
  /** One entry per category quality score shown. */
  scores: string[];
  /** All the text a person could read. */
  all: string;
}

interface Surface {
  name: string;
  shown(reply: Reply): Shown;
  /** Whether a score entry shows `label` with the value `value` (exact text, no further digits). */
  scoreIs(entry: string, label: string, value: string): boolean;
}

const SURFACES: Surface[] = [
  {
    name: 'Slack blocks',
    shown(reply) {
      const msg = renderSlack(reply);
      const blocks = msg.blocks as unknown as {
        type: string;
        text?: { text: string };
        fields?: { text: string }[];
        elements?: { text?: unknown }[];
      }[];
      const headline = blocks
        .filter((b) => b.type === 'section' && b.text?.text.startsWith('*Probability of Loss:*'))
        .map((b) => ({ where: 'headline block', text: b.text!.text }));
      const start = blocks.findIndex((b) => b.type === 'section' && b.text?.text.startsWith('*Category quality scores*'));
      const scores: string[] = [];
      // A section holds ten fields at most; more continue in untitled sections right after it.
      for (let i = start; start >= 0 && i < blocks.length && (i === start || (blocks[i]!.type === 'section' && !blocks[i]!.text)); i++) {
        scores.push(...(blocks[i]!.fields ?? []).map((f) => f.text));
      }
      const texts: string[] = [msg.text];
      JSON.stringify(msg.blocks, (key, value: unknown) => {
        if ((key === 'text' || key === 'alt_text') && typeof value === 'string') texts.push(value);
        return value;
      });
      return { headline: [...headline, { where: 'notification text', text: msg.text }], scores, all: texts.join('\n') };
    },
    scoreIs: (entry, label, value) => new RegExp(`^\\*${escapeRe(label)}\\*\\n${escapeRe(value)}(?![\\d.])`).test(entry),
  },
  {
    name: 'Discord embeds',
    shown(reply) {
      const msg = renderDiscord(reply);
      const fields = msg.embeds.flatMap((e) => e.fields ?? []);
      const headline = fields
        .filter((f) => f.name.startsWith('Probability of Loss'))
        .map((f) => ({ where: `field "${f.name}"`, text: f.value }));
      const scores = fields.filter((f) => f.name.startsWith('Category quality scores')).flatMap((f) => f.value.split('\n'));
      const all = [
        msg.content,
        ...msg.embeds.flatMap((e) => [
          e.title,
          e.description,
          e.author?.name,
          ...(e.fields ?? []).flatMap((f) => [f.name, f.value]),
          e.footer?.text,
        ]),
      ].filter((t): t is string => typeof t === 'string');
      return { headline, scores, all: all.join('\n') };
    },
    scoreIs: (entry, label, value) => entry.startsWith(`${label}: **${value}**`),
  },
  {
    name: 'console text (polbot ask)',
    shown(reply) {
      // As `polbot ask` prints it when its output is not a terminal.
      const text = renderConsole(reply, { color: false, commands: 'ask' });
      const lines = text.split('\n');
      const headline = lines.filter((l) => l.startsWith('Probability of Loss:')).map((l) => ({ where: 'headline line', text: l }));
      const start = lines.findIndex((l) => l.startsWith('Category quality scores'));
      const scores: string[] = [];
      for (let i = start + 1; start >= 0 && i < lines.length && lines[i]!.trim() !== ''; i++) scores.push(lines[i]!);
      return { headline, scores, all: text };
    },
    scoreIs: (entry, label, value) => new RegExp(`^\\s+${escapeRe(label)}\\s+${escapeRe(value)}(?![\\d.])`).test(entry),
  },
];

/** `needle` in `text`, not as the tail of a longer number (so `5.1%` is not found in `35.1%`). */
const hasExact = (text: string, needle: string) => new RegExp(`(?<![\\d.])${escapeRe(needle)}`).test(text);

/** Every way one surface's rendering of a card differs from the dataset, each naming the entity. */
function mismatches(surface: Surface, truth: Truth, reply: Reply): string[] {
  if (reply.kind !== 'card') return [`${truth.ref}: a ${reply.kind} reply, not a card: ${JSON.stringify(reply).slice(0, 300)}`];
  const out: string[] = [];
  const shown = surface.shown(reply);
  const pol = `dataset PoL ${truth.pol} (${polText(truth.pol)})`;
  if (shown.headline.length === 0) out.push(`${truth.ref}: no PoL headline; ${pol}`);
  for (const h of shown.headline) {
    if (!showsPol(h.text, truth.pol))
      out.push(`${truth.ref} ${h.where}: no percentage reads as the PoL in ${JSON.stringify(h.text)}; ${pol}`);
    if (!hasExact(h.text, polText(truth.pol)))
      out.push(`${truth.ref} ${h.where}: ${JSON.stringify(polText(truth.pol))} not in ${JSON.stringify(h.text)}; ${pol}`);
  }
  if (shown.scores.length !== truth.scores.length) {
    out.push(
      `${truth.ref}: ${shown.scores.length} category scores shown, the dataset has ${truth.scores.length}: ${JSON.stringify(shown.scores)}`,
    );
  }
  for (const { label, score } of truth.scores) {
    if (!shown.scores.some((entry) => surface.scoreIs(entry, label, scoreText(score)))) {
      const entry = shown.scores.find((e) => e.includes(label));
      out.push(`${truth.ref} ${label}: shown ${JSON.stringify(entry ?? null)}, dataset score ${score} (${scoreText(score)})`);
    }
  }
  return out;
}

let core: Core;
let store: SimStore;
let entities: SimEntity[];
/** Each entity's card, asked for once and rendered by every surface. */
const cards = new Map<string, Reply>();

beforeAll(async () => {
  core = await demoCore();
  store = core.upstream.sim!.store;
  entities = [...store.entities('project'), ...store.entities('exchange')];
  const BATCH = 16;
  for (let i = 0; i < entities.length; i += BATCH) {
    const batch = entities.slice(i, i + BATCH);
    const replies = await Promise.all(batch.map(async (e) => (await core.run(`${e.kind}:${e.slug}`)).reply));
    batch.forEach((e, j) => cards.set(`${e.kind}:${e.slug}`, replies[j]!));
  }
});
afterAll(() => core.close());

describe('numbers a score card shows, for every entity in the dataset', () => {
  it('the dataset gives every entity a latest PoL and every category score, so none is left out below', () => {
    const odd: string[] = [];
    for (const e of entities) {
      const latest = e.pol.length ? last(e.pol) : undefined;
      if (latest === undefined || !Number.isFinite(latest) || latest < 0 || latest > 1) odd.push(`${e.kind}:${e.slug} PoL ${latest}`);
      for (const [name, c] of Object.entries(e.categories as Record<string, { scores: number[] }>)) {
        const s = c.scores.length ? last(c.scores) : undefined;
        if (s === undefined || !Number.isFinite(s) || s < 0 || s > 100) odd.push(`${e.kind}:${e.slug} ${name} ${s}`);
      }
    }
    // An entity without a latest PoL or score would need its own expectation (what the card says
    // instead); the simulator has none today, and this fails if that changes.
    expect(odd).toEqual([]);
    expect(store.entities('project').length).toBeGreaterThan(0);
    expect(store.entities('exchange').length).toBeGreaterThan(0);
    expect(cards.size).toBe(entities.length);
  });

  it('covers every display precision and both ends of the score scale', () => {
    const pols = entities.map((e) => last(e.pol) * 100);
    expect(pols.some((p) => p < 0.1)).toBe(true); // three decimals
    expect(pols.some((p) => p >= 0.1 && p < 10)).toBe(true); // two
    expect(pols.some((p) => p >= 10)).toBe(true); // one
    const scores = entities.flatMap((e) => Object.values(e.categories as Record<string, { scores: number[] }>).map((c) => last(c.scores)));
    expect(scores).toContain(0);
    expect(scores).toContain(100);
    expect(scores.some((s) => !Number.isInteger(s))).toBe(true);
  });

  it.each(SURFACES)('$name: the PoL and every category score match the dataset', (surface) => {
    const found = entities.flatMap((e) => mismatches(surface, truthOf(e), cards.get(`${e.kind}:${e.slug}`)!));
    expect(found).toEqual([]);
  });

  it.each(SURFACES)('$name: the check fails for numbers the dataset does not hold', (surface) => {
    const e = store.exchange('binance')!;
    const reply = cards.get('exchange:binance')!;
    const truth = truthOf(e);
    const { all } = surface.shown(reply);
    expect(showsPol(all, truth.pol)).toBe(true);
    expect(showsPol(all, truth.pol * 10)).toBe(false);
    expect(mismatches(surface, truth, reply)).toEqual([]);
    // Ten times the PoL, and each score one point higher: every one of them is reported.
    const wrong: Truth = { ...truth, pol: truth.pol * 10, scores: truth.scores.map((s) => ({ ...s, score: s.score + 1 })) };
    const found = mismatches(surface, wrong, reply);
    expect(found.filter((m) => m.includes('PoL')).length).toBeGreaterThan(0);
    for (const s of truth.scores) expect(found.some((m) => m.startsWith(`exchange:binance ${s.label}:`))).toBe(true);
  });
});
