import { type EntityRef, isUnreadable, type PolPoint, type PolValue, readable, type RedFlags } from '../api/domain.js';
import type { DataSource, Fetched } from '../api/source.js';
import { ratingRank } from '../api/rules.js';
import type { ChartRenderer, WatchlistChartSpec } from '../charts/index.js';
import * as fmt from '../reply/format.js';
import type { Column, Footer, ReplyImage, Section, TableReply } from '../reply/model.js';
import { footerOf } from '../reply/footer.js';
import { settle, type Settled } from '../api/settle.js';
import { formatSlot, typicalInterval } from './schedule.js';
import type { Digest, EntitySnapshot, RunContent, Snapshot } from './store.js';

export interface ContentOptions {
  /** Rows per message; longer watchlists are split into balanced parts ("part 1 of 2"). */
  rowsPerPart: number;
  /** A PoL move is a highlight from this many PoL points (0.005 = 0.5 pp)... */
  polMoveAbs: number;
  /** ...or from this relative change, when it is also at least `polMoveMinAbs`. */
  polMoveRel: number;
  polMoveMinAbs: number;
  /** Items per highlight section; the rest are counted in a final item, never dropped silently. */
  maxHighlightItems: number;
}

export const DEFAULT_CONTENT: ContentOptions = {
  rowsPerPart: 15,
  polMoveAbs: 0.005,
  polMoveRel: 0.25,
  polMoveMinAbs: 0.0005,
  maxHighlightItems: 20,
};

/**
 * Each entity's data, fetched once for every digest that watches it. Requests go through the
 * shared cache, whose single-flight also merges them with people's commands asking for the same
 * thing at the same moment. A failure is shared by the requests already waiting for it, then
 * forgotten, so a later digest asks again rather than repeating an outage.
 */
export class EntityLoader {
  private readonly memo = new Map<string, Promise<Settled<Fetched<unknown>>>>();

  constructor(private readonly source: DataSource) {}

  private once<T>(key: string, load: () => Promise<Fetched<T>>): Promise<Settled<Fetched<T>>> {
    let p = this.memo.get(key);
    if (!p) {
      const settled = settle(load());
      p = settled;
      this.memo.set(key, settled);
      void settled.then((r) => {
        if (!r.ok && this.memo.get(key) === settled) this.memo.delete(key);
      });
    }
    return p as Promise<Settled<Fetched<T>>>;
  }

  pol(e: EntityRef) {
    return this.once<PolValue>(`pol ${e.kind}:${e.slug}`, () => this.source.polCurrent(e.kind, e.slug));
  }

  chart(e: EntityRef, days: number) {
    return this.once<PolPoint[]>(`chart ${e.kind}:${e.slug}:${days}`, () => this.source.polChart(e.kind, e.slug, days));
  }

  flags(e: EntityRef) {
    return this.once<RedFlags>(`flags ${e.slug}`, () => this.source.redFlags(e.slug));
  }
}

export interface DigestInput {
  digest: Digest;
  /** The slot being delivered; null for a preview. */
  slot: number | null;
  previous: { slot: number; snapshot: Snapshot } | null;
  /** Scheduled digests not sent since the previous one (downtime, failures). */
  unsent: number;
  nextRun: number | null;
  now: number;
}

/** "digest #12 · 2026-11-22 09:00 Europe/Berlin (GMT+1)", plus the part when there are several. */
export function deliveryKey(digest: Pick<Digest, 'id' | 'timezone'>, slot: number, part = 0, parts = 1): string {
  const base = `digest #${digest.id} · ${formatSlot(slot, digest.timezone, { offset: true })}`;
  return parts > 1 ? `${base} · part ${part + 1}/${parts}` : base;
}

/** Daily digests chart a month, weekly ones a quarter, rarer ones a year. */
export function chartDays(digest: Pick<Digest, 'cron' | 'timezone'>, now: number): number {
  const interval = typicalInterval(digest.cron, digest.timezone, now);
  const day = 86_400_000;
  return interval <= 1.5 * day ? 30 : interval <= 8 * day ? 90 : 365;
}

const refKey = (e: { kind: string; slug: string }) => `${e.kind}:${e.slug}`;

function displayName(e: EntityRef): string {
  return `${e.name}${e.ticker ? ` (${e.ticker})` : ''}`;
}

/** Null when either list could not be read: "no flags" would report every flag as gone. */
function flagList(flags: RedFlags): string[] | null {
  const { marketMaker, investor } = flags;
  if (isUnreadable(marketMaker) || isUnreadable(investor)) return null;
  return [...marketMaker.map((f) => `Market maker: ${f}`), ...investor.map((f) => `Investor: ${f}`)];
}

function capped(items: string[], max: number, what: string): string[] {
  if (items.length <= max) return items;
  return [...items.slice(0, max - 1), `…and ${items.length - (max - 1)} more ${what}`];
}

const COLUMNS: Column[] = [
  { key: 'name', label: 'Name' },
  { key: 'pol', label: 'PoL', align: 'right' },
  { key: 'change', label: 'Change', align: 'right' },
  { key: 'rating', label: 'Rating' },
];

/**
 * A digest as Replies: the watchlist table (split into parts when long), highlights since the
 * previous digest, a chart of the watchlist's PoL and a footer naming the slot and the next run.
 * Comparisons use the previous digest's stored snapshot, never a re-fetched history, so "since the
 * previous digest" means exactly what the channel saw then.
 */
export async function buildDigest(loader: EntityLoader, input: DigestInput, options: Partial<ContentOptions> = {}): Promise<RunContent> {
  const o = { ...DEFAULT_CONTENT, ...options };
  const { digest, previous } = input;
  const days = chartDays(digest, input.now);
  const fetched = await Promise.all(
    digest.entities.map(async (e) => {
      const [pol, chart, flags] = await Promise.all([
        loader.pol(e),
        loader.chart(e, days),
        e.kind === 'project' ? loader.flags(e) : Promise.resolve(undefined),
      ]);
      return { e, pol, chart, flags };
    }),
  );
  // Nothing to say when the upstream is down for every name: a transient failure, retried later.
  const failures = fetched.flatMap((f) => (f.pol.ok ? [] : [f.pol.error]));
  if (failures.length === fetched.length && failures.length > 0 && failures.some((e) => e.isUpstreamFailure))
    throw failures.find((e) => e.isUpstreamFailure)!;

  const snapshot: Snapshot = {
    takenAt: input.now,
    entities: fetched.map(({ e, pol, flags }): EntitySnapshot => {
      const value = pol.ok ? readable(pol.value.data.pol) : undefined;
      return {
        kind: e.kind,
        slug: e.slug,
        name: displayName(e),
        pol: value ?? null,
        rating: (pol.ok ? readable(pol.value.data.rating) : undefined) ?? null,
        flags: flags?.ok ? flagList(flags.value.data) : null,
        status: pol.ok ? (value === undefined ? 'unreadable' : 'ok') : pol.error.kind === 'not_found' ? 'not_found' : 'unavailable',
      };
    }),
  };
  const before = new Map((previous?.snapshot.entities ?? []).map((s) => [refKey(s), s]));

  const rows: Record<string, string>[] = [];
  const downgrades: string[] = [];
  const moves: { text: string; size: number }[] = [];
  const newFlags: string[] = [];
  const gaps: string[] = [];
  for (const s of snapshot.entities) {
    const prev = before.get(refKey(s));
    const row: Record<string, string> = { name: s.name, pol: '', change: '', rating: '' };
    rows.push(row);
    if (s.status !== 'ok' || s.pol === null) {
      row.pol = s.status === 'not_found' ? 'not rated' : s.status === 'unreadable' ? 'unreadable' : 'unavailable';
      row.change = '—';
      row.rating = s.rating ?? '—';
      gaps.push(
        s.status === 'not_found'
          ? `${s.name}: no longer rated by the risk-data service`
          : s.status === 'unreadable'
            ? `${s.name}: the PoL it sent could not be read; it is compared again next time`
            : `${s.name}: data unavailable right now; it is compared again next time`,
      );
      continue;
    }
    row.pol = fmt.pol(s.pol);
    row.rating = s.rating ?? '—';
    if (!previous) {
      row.change = '—';
      continue;
    }
    if (!prev || prev.pol === null) {
      row.change = prev ? 'n/a' : 'new';
      continue;
    }
    const delta = s.pol - prev.pol;
    const flat = fmt.polChange(delta) === '±0 pp';
    row.change = flat ? '±0 pp' : `${fmt.polChange(delta)} ${delta > 0 ? 'worse' : 'better'}`;
    const was = ratingRank(prev.rating);
    const now = ratingRank(s.rating);
    if (prev.rating && s.rating && prev.rating !== s.rating) {
      const down = was !== undefined && now !== undefined && now > was;
      const up = was !== undefined && now !== undefined && now < was;
      row.rating = `${s.rating} (was ${prev.rating}${down ? ', down' : up ? ', up' : ''})`;
      if (down) downgrades.push(`${s.name}: ${prev.rating} → ${s.rating}`);
    }
    const size = Math.abs(delta);
    const relative = prev.pol > 0 ? size / prev.pol : Infinity;
    if (size >= o.polMoveAbs || (relative >= o.polMoveRel && size >= o.polMoveMinAbs)) {
      moves.push({
        text: `${s.name}: ${fmt.pol(prev.pol)} → ${fmt.pol(s.pol)} (${fmt.polChange(delta)}, ${delta > 0 ? 'worse' : 'better'})`,
        size,
      });
    }
    if (s.flags && prev.flags) {
      const seen = new Set(prev.flags);
      for (const f of s.flags) if (!seen.has(f)) newFlags.push(`${s.name} · ${f}`);
    }
  }

  const highlights: Section[] = [];
  if (!previous) {
    highlights.push({ title: 'Highlights', items: [], empty: 'This is the first digest: changes and highlights start with the next one.' });
  } else {
    if (downgrades.length) highlights.push({ title: 'Rating downgrades', items: capped(downgrades, o.maxHighlightItems, 'downgrades') });
    if (moves.length) {
      const sorted = moves.sort((a, b) => b.size - a.size).map((m) => m.text);
      highlights.push({ title: 'PoL moves', direction: 'lower is safer', items: capped(sorted, o.maxHighlightItems, 'moves') });
    }
    if (newFlags.length) highlights.push({ title: 'New red flags', items: capped(newFlags, o.maxHighlightItems, 'new red flags') });
    if (highlights.length === 0) {
      highlights.push({
        title: 'Highlights',
        items: [],
        empty: `No rating downgrades, PoL moves of ${fmt.polChange(o.polMoveAbs).replace('+', '')} or more, or new red flags since the previous digest.`,
      });
    }
  }
  if (gaps.length) highlights.push({ title: 'Not available', items: capped(gaps, o.maxHighlightItems, 'names') });

  const metas = fetched.flatMap((f) => [f.pol, f.chart, ...(f.flags ? [f.flags] : [])]).flatMap((s) => (s.ok ? [s.value] : []));
  const base = footerOf(metas, input.now);
  const series = fetched.flatMap((f) =>
    f.chart.ok && f.chart.value.data.length ? [{ name: displayName(f.e), points: f.chart.value.data }] : [],
  );
  const chart: WatchlistChartSpec | null = series.length
    ? {
        kind: 'watchlist',
        series,
        listName: `Digest #${digest.id}`,
        range: `${days}d`,
        simulated: base.simulated,
        cacheKey: `digest:${digest.id}`,
      }
    : null;

  const tz = digest.timezone;
  const since = previous
    ? `Change: since the previous digest of ${formatSlot(previous.slot, tz)}.`
    : 'First digest: changes are shown from the next one.';
  const note = `${digest.entities.length} ${digest.entities.length === 1 ? 'name' : 'names'} · ${digest.scheduleLabel} ${tz}. PoL: lower is safer. ${since}`;
  const notes = (part: number, parts: number): string[] => [
    input.slot === null
      ? `Preview of digest #${digest.id}: not a scheduled digest, and not a baseline for the next one.`
      : deliveryKey(digest, input.slot, part, parts),
    input.nextRun === null ? 'No further digests are scheduled.' : `Next digest: ${formatSlot(input.nextRun, tz, { weekday: true })}`,
    ...(input.unsent > 0
      ? [
          `${input.unsent} earlier scheduled ${input.unsent === 1 ? 'digest was' : 'digests were'} not sent (polbot was offline or delivery failed); changes are since the last digest sent.`,
        ]
      : []),
  ];

  const partCount = Math.max(1, Math.ceil(rows.length / o.rowsPerPart));
  const size = Math.ceil(rows.length / partCount);
  const parts: TableReply[] = [];
  for (let i = 0; i < partCount; i++) {
    const footer: Footer = { ...base, notes: notes(i, partCount) };
    parts.push({
      kind: 'table',
      title: `${input.slot === null ? 'Preview: watchlist' : 'Watchlist'} digest #${digest.id}${partCount > 1 ? ` (part ${i + 1} of ${partCount})` : ''}`,
      note: i === 0 ? note : `Names ${i * size + 1}–${Math.min(rows.length, (i + 1) * size)} of ${rows.length}. PoL: lower is safer.`,
      columns: COLUMNS,
      rows: rows.slice(i * size, (i + 1) * size),
      ...(i === 0 ? { sections: highlights } : {}),
      footer,
    });
  }
  return { snapshot, parts, chart };
}

/** The chart for the first part; a chart that fails to draw costs the digest its image, not its numbers. */
export async function chartFor(charts: ChartRenderer, spec: WatchlistChartSpec | null): Promise<ReplyImage | undefined> {
  if (!spec) return undefined;
  try {
    return await charts.render(spec);
  } catch {
    return undefined;
  }
}
