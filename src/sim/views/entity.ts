import type { CategorySeries, SimEntity } from '../data/model.js';
import { ratingForPol, ratingForScore, round } from '../data/scales.js';
import type { EntityKind, SimStore } from '../data/store.js';

/** Response bodies shared by both services: per-entity PoL, its breakdowns and their histories. */

export function scoreObject(series: CategorySeries, i: number) {
  const score = series.scores[i]!;
  return { score, rating: ratingForScore(score), confidence: series.confidence };
}

function categoryEntries(e: SimEntity): [string, CategorySeries][] {
  return Object.entries(e.categories as Record<string, CategorySeries>);
}

export function polCurrent(store: SimStore, e: SimEntity) {
  const i = store.lastIndex;
  const pol = e.pol[i]!;
  return { slug: e.slug, pol, rating: ratingForPol(pol), timestamp: store.data.days[i]! };
}

function polPoints(store: SimStore, e: SimEntity, [start, end]: [number, number]) {
  const points = [];
  for (let i = start; i < end; i++) {
    const pol = e.pol[i]!;
    points.push({ timestamp: store.data.days[i]!, pol, rating: ratingForPol(pol) });
  }
  return points;
}

export function polHistory(store: SimStore, e: SimEntity, from: number, to: number) {
  return { slug: e.slug, from, to, points: polPoints(store, e, store.rangeIndices(from, to)) };
}

export function polChart(store: SimStore, e: SimEntity, days: number | undefined) {
  return { slug: e.slug, days: days ?? null, points: polPoints(store, e, store.windowIndices(days)) };
}

/** Category weights: equal shares, as the upstream does not publish its weighting. */
export function byCategory(store: SimStore, e: SimEntity) {
  const i = store.lastIndex;
  const entries = categoryEntries(e);
  return {
    slug: e.slug,
    timestamp: store.data.days[i]!,
    categories: entries.map(([category, series]) => ({
      category,
      weight: round(1 / entries.length, 4),
      score: scoreObject(series, i),
    })),
  };
}

function categoryPoints(store: SimStore, e: SimEntity, [start, end]: [number, number]) {
  const entries = categoryEntries(e);
  const points = [];
  for (let i = start; i < end; i++) {
    const point: Record<string, unknown> = { timestamp: store.data.days[i]! };
    for (const [category, series] of entries) point[category] = scoreObject(series, i);
    points.push(point);
  }
  return points;
}

export function byCategoryHistory(store: SimStore, e: SimEntity, from: number, to: number) {
  return { slug: e.slug, from, to, points: categoryPoints(store, e, store.rangeIndices(from, to)) };
}

export function byCategoryChart(store: SimStore, e: SimEntity, days: number | undefined) {
  return { slug: e.slug, days: days ?? null, points: categoryPoints(store, e, store.windowIndices(days)) };
}

function metricScore(e: SimEntity, metric: SimEntity['metrics'][number], i: number): number {
  const series = (e.categories as Record<string, CategorySeries>)[metric.category]!;
  return round(Math.min(100, Math.max(0, series.scores[i]! + metric.offset)), 1);
}

export function byMetric(store: SimStore, e: SimEntity) {
  const i = store.lastIndex;
  return {
    slug: e.slug,
    timestamp: store.data.days[i]!,
    metrics: e.metrics.map((m) => {
      const score = metricScore(e, m, i);
      return {
        metric: m.metric,
        category: m.category,
        label: m.label,
        weight: m.weight,
        score: { score, rating: ratingForScore(score) },
      };
    }),
  };
}

function metricPoints(store: SimStore, e: SimEntity, [start, end]: [number, number]) {
  const points = [];
  for (let i = start; i < end; i++) {
    const metrics: Record<string, number> = {};
    for (const m of e.metrics) metrics[m.metric] = metricScore(e, m, i);
    points.push({ timestamp: store.data.days[i]!, metrics });
  }
  return points;
}

export function byMetricHistory(store: SimStore, e: SimEntity, from: number, to: number) {
  return { slug: e.slug, from, to, points: metricPoints(store, e, store.rangeIndices(from, to)) };
}

export function byMetricChart(store: SimStore, e: SimEntity, days: number | undefined) {
  return { slug: e.slug, days: days ?? null, points: metricPoints(store, e, store.windowIndices(days)) };
}

export function indexPol(store: SimStore, kind: EntityKind) {
  const series = store.indexPol(kind);
  const pol = series[store.lastIndex]!;
  return { pol, rating: ratingForPol(pol), entities: store.entities(kind).length, timestamp: store.asOf };
}

function indexPoints(store: SimStore, kind: EntityKind, [start, end]: [number, number]) {
  const series = store.indexPol(kind);
  const points = [];
  for (let i = start; i < end; i++) points.push({ timestamp: store.data.days[i]!, pol: series[i]! });
  return points;
}

export function indexPolHistory(store: SimStore, kind: EntityKind, from: number, to: number) {
  return { from, to, points: indexPoints(store, kind, store.rangeIndices(from, to)) };
}

export function indexPolChart(store: SimStore, kind: EntityKind, days: number | undefined) {
  return { days: days ?? null, points: indexPoints(store, kind, store.windowIndices(days)) };
}

export function health(service: string, failing: boolean) {
  const status = failing ? 'failing' : 'ok';
  return {
    status,
    service,
    checks: [
      { name: 'database', status },
      { name: 'ratings_engine', status: 'ok' },
    ],
  };
}
