import type { EntityRef } from '../src/api/domain.js';
import { okValue, settle } from '../src/api/settle.js';
import { atOrAbove, type ListedRead, NOTABLE_POL, polsOf, readListed, type Rise, risen } from '../src/exposure/listed.js';
import type { EarliestReading } from '../src/exposure/readings.js';
import * as fmt from '../src/reply/format.js';
import { footerOf } from '../src/reply/footer.js';
import { inline, ref } from '../src/reply/inline.js';
import type { Action, CardReply, Reply, Section } from '../src/reply/model.js';
import type { CommandContext } from './kit/context.js';
import { projectInstead } from './kit/exchange-instead.js';
import { resolveTarget } from './kit/resolve-target.js';
import { type Args, defineCommand, EXCHANGE_NAME, type HandlerContext, str } from './kit/spec.js';
import { parseTarget, targetRef } from './kit/target.js';

/**
 * Exposure: which of the assets an exchange lists got worse over a window, read on their PoL (the
 * upstream gives listed assets a PoL and no rating and no history), against the readings polbot
 * keeps itself; and which stand at a notable level now. Every look is kept as a reading.
 */

const WINDOW_DAYS: Readonly<Record<string, number>> = { '7d': 7, '30d': 30, '90d': 90 };
const DAY = 86_400_000;
/** Lines of each list before `+N more`. */
const SHOWN = 15;
/** Assets offered as cards, of those shown. */
const CARD_BUTTONS = 5;

const NOTABLE = fmt.pol(NOTABLE_POL);

export default defineCommand({
  name: 'exposure',
  order: 14,
  words: ['exposure'],
  summary: `The assets an exchange lists that got worse over a window (PoL up, worst first), and those at ${NOTABLE} or more now`,
  examples: ['exposure binance', 'exposure kraken 7d'],
  options: [
    EXCHANGE_NAME,
    {
      type: 'choice',
      name: 'window',
      description: 'Compared with 7d, 30d or 90d ago (default 30d)',
      choices: Object.keys(WINDOW_DAYS).map((value) => ({ value })),
      aliases: { '1w': '7d', '1m': '30d', '3m': '90d' },
      near: /^\d+[hdwmy]$/,
      default: '30d',
    },
  ],
  handler: (ctx, args) => showExposure(ctx, args),
});

async function showExposure(ctx: HandlerContext, args: Args): Promise<Reply> {
  const window = str(args, 'window') || '30d';
  const target = parseTarget(str(args, 'name'), 'exchange');
  const why = 'exposure is read from the assets an exchange lists';
  if (target.explicit && target.explicit.kind !== 'exchange')
    return {
      kind: 'error',
      message: 'Exposure is published for exchanges only: it is read from the assets an exchange lists.',
      hint: inline`See the project's card with ${ref('project', { name: target.explicit.slug })}.`,
    };
  if (!ctx.source.supports('listedAssets', 'exchange'))
    return {
      kind: 'text',
      title: 'Exposure',
      text: 'Exposure needs the REST service: it is read from the assets an exchange lists, and the tool server has no tool for them.',
    };
  const resolved = await resolveTarget(ctx, target, (name) => ({ command: 'exposure', args: { name, window } }), 'exchange');
  if (!resolved.ok)
    return (resolved.reply.reason === 'not_found' && !target.explicit && (await projectInstead(ctx, target.text, why))) || resolved.reply;
  return exposureCard(ctx, resolved.entity, window);
}

async function exposureCard(ctx: CommandContext, entity: EntityRef, window: string): Promise<CardReply> {
  const now = ctx.now();
  const from = now - WINDOW_DAYS[window]! * DAY;
  const [read, record, earlier] = await Promise.all([
    readListed(ctx.source, entity.slug),
    settle(ctx.source.record('exchange', entity.slug)),
    // Readings that cannot be read just now cost the comparison, not the answer.
    ctx.listed.earliest(entity.slug, from, now).catch(() => null),
  ]);
  const named: EntityRef = { ...entity, name: okValue(record)?.data.name ?? entity.name };
  const kept = await keep(ctx, entity.slug, now, read);
  const baseline = earlier?.reading ?? null;
  const worse = baseline ? risen(read.now, baseline.pols, 0) : null;
  const above = atOrAbove(read.now, NOTABLE_POL);
  const listedCount = Object.keys(read.now).length;
  const sections: Section[] = [
    ...(worse && baseline
      ? [
          {
            title: `Worse since ${fmt.utc(baseline.at)}`,
            direction: 'lower is safer' as const,
            items: shown(worse.map(riseLine)),
            empty: `none of the ${fmt.count(listedCount)} listed assets`,
          },
        ]
      : []),
    {
      title: `At or above ${NOTABLE} now`,
      direction: 'lower is safer',
      items: shown(above.map((a) => `${a.name}: ${fmt.pol(a.pol)}`)),
      empty: `none of the ${fmt.count(listedCount)} listed assets`,
    },
  ];
  const notes = [
    ...(read.unreadable ? [`${fmt.count(read.unreadable)} listed assets came with a PoL that could not be read and are left out.`] : []),
    ...(read.complete ? [] : [`Only the first ${fmt.count(read.total)} listed assets were read.`]),
    ...(kept === 'failed' ? ['This look could not be kept as a reading; the next one compares with what was kept before.'] : []),
    ...(kept === 'stale' ? ['This look was served from the cache after an upstream failure and is not kept as a reading.'] : []),
  ];
  if (notes.length) sections.push({ title: 'Notes', items: notes });
  return {
    kind: 'card',
    entity: named,
    title: `Exposure: ${named.name}`,
    subtitle: `${compared(named.name, window, { from, now, kept: kept === 'kept' }, earlier, ctx.listed.kept)} PoL: lower is safer.`,
    headline: worse
      ? {
          label: `Listed assets worse over ${WINDOW_DAYS[window]} days`,
          value: `${fmt.count(worse.length)} of ${fmt.count(listedCount)}`,
          direction: 'lower is safer',
        }
      : {
          label: `Listed assets at or above ${NOTABLE}`,
          value: `${fmt.count(above.length)} of ${fmt.count(listedCount)}`,
          direction: 'lower is safer',
        },
    sections,
    footer: footerOf([...read.pages, ...(record.ok ? [record.value] : [])], now),
    actions: [
      ...(await cardButtons(ctx, read, [...(worse ?? []).map((r) => r.id), ...above.map((a) => a.id)])),
      ...Object.keys(WINDOW_DAYS)
        .filter((w) => w !== window)
        .map((w) => ({
          label: `Over ${WINDOW_DAYS[w]} days`,
          run: { command: 'exposure', args: { name: targetRef('exchange', entity.slug), window: w } },
        })),
    ],
  };
}

/** This look kept as a reading, unless it was served stale (it says nothing new then). */
async function keep(ctx: CommandContext, slug: string, now: number, read: ListedRead): Promise<'kept' | 'stale' | 'failed'> {
  if (read.pages.some((p) => p.meta.stale)) return 'stale';
  try {
    await ctx.listed.record(slug, now, polsOf(read.now));
    return 'kept';
  } catch {
    return 'failed';
  }
}

/** What this look is compared with, said plainly: a reading and its time, or why there is none yet and when there will be. */
function compared(
  name: string,
  window: string,
  look: { from: number; now: number; kept: boolean },
  earlier: EarliestReading | null,
  where: 'database' | 'process',
): string {
  const days = WINDOW_DAYS[window]!;
  const { from, now } = look;
  const here = where === 'process' ? ' Here readings last only while this polbot runs: it keeps no database.' : '';
  if (!earlier) return `polbot's earlier readings of ${name}'s listed assets could not be read just now, so nothing is compared.`;
  if (!earlier.reading) {
    const next = look.kept ? ` This look is kept: the next one shows what got worse since ${fmt.utc(now)}` : '';
    if (earlier.firstAt === null)
      return `First look: polbot has no earlier reading of ${name}'s listed assets, so there is nothing to compare with yet.${next}${next ? `, and a full ${days}-day comparison is possible from ${fmt.utc(now + days * DAY)}.` : ''}${here}`;
    return `Nothing to compare with in the last ${days} days: polbot's readings of ${name}'s listed assets are all older.${next}${next ? '.' : ''}${here}`;
  }
  const at = earlier.reading.at;
  if (earlier.firstAt === at && at > from)
    return `Compared with polbot's first reading of ${name}'s listed assets, ${fmt.utc(at)}: its readings start later than ${days} days ago.${here}`;
  return `Compared with polbot's earliest reading of ${name}'s listed assets in the last ${days} days, ${fmt.utc(at)}.${here}`;
}

const riseLine = (r: Rise): string => `${r.name}: ${fmt.pol(r.to)} now, ${fmt.pol(r.from)} then (${fmt.polChange(r.to - r.from)})`;

const shown = (lines: readonly string[]): string[] =>
  lines.length > SHOWN ? [...lines.slice(0, SHOWN), `+${fmt.count(lines.length - SHOWN)} more`] : [...lines];

/**
 * A card for each of the first assets shown whose name and ticker are exactly one rated project's;
 * an asset that matches none, or several, gets no button: a card is never guessed.
 */
async function cardButtons(ctx: CommandContext, read: ListedRead, ids: readonly string[]): Promise<Action[]> {
  const assets = new Map(read.pages.flatMap((p) => p.data.items).map((a) => [String(a.id), a]));
  const candidates = [...new Set(ids)].slice(0, SHOWN).flatMap((id) => {
    const a = assets.get(id);
    return a ? [a] : [];
  });
  const found = await Promise.all(
    candidates.map(async (a): Promise<Action | null> => {
      const r = await ctx.resolver.resolve(a.name, 'project').catch(() => undefined);
      if (r?.status !== 'resolved') return null;
      const e = r.entity;
      if (e.ticker && a.ticker && e.ticker.toLowerCase() !== a.ticker.toLowerCase()) return null;
      return { label: `View ${a.name}`, run: { command: 'card', args: { name: targetRef('project', e.slug) } } };
    }),
  );
  return found.filter((b): b is Action => b !== null).slice(0, CARD_BUTTONS);
}
