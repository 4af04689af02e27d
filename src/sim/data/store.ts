import { generate, type GenerateOptions } from './generate.js';
import type { SimData, SimEntity, SimExchange, SimProject, SimToken } from './model.js';
import { DAY, round } from './scales.js';

export type EntityKind = 'project' | 'exchange';

/**
 * The simulator's single source of truth. REST routes and MCP tools both read from here,
 * so a number read through either interface is the same number.
 */
export class SimStore {
  readonly data: SimData;
  private readonly projectIndex = new Map<string, SimProject>();
  private readonly exchangeIndex = new Map<string, SimExchange>();
  private readonly indexPolCache = new Map<EntityKind, number[]>();

  constructor(options: GenerateOptions) {
    this.data = generate(options);
    for (const p of this.data.projects) this.projectIndex.set(p.slug, p);
    for (const e of this.data.exchanges) this.exchangeIndex.set(e.slug, e);
  }

  get lastIndex(): number {
    return this.data.days.length - 1;
  }

  get asOf(): number {
    return this.data.days[this.lastIndex]!;
  }

  project(slug: string): SimProject | undefined {
    return this.projectIndex.get(slug);
  }

  exchange(slug: string): SimExchange | undefined {
    return this.exchangeIndex.get(slug);
  }

  entity(kind: EntityKind, slug: string): SimEntity | undefined {
    return kind === 'project' ? this.project(slug) : this.exchange(slug);
  }

  entities(kind: EntityKind): readonly SimEntity[] {
    return kind === 'project' ? this.data.projects : this.data.exchanges;
  }

  /** Index of the first and one-past-last daily point within [from, to] (both inclusive). */
  rangeIndices(from: number, to: number): [number, number] {
    const days = this.data.days;
    let start = days.findIndex((t) => t >= from);
    if (start === -1) start = days.length;
    let end = days.length;
    while (end > start && days[end - 1]! > to) end--;
    return [start, end];
  }

  /** Indices of the last `days` days of history (all of it when days is undefined). */
  windowIndices(days: number | undefined): [number, number] {
    if (days === undefined) return [0, this.data.days.length];
    return this.rangeIndices(this.asOf - days * DAY, this.asOf);
  }

  /**
   * A token's PoL as a listing reports it: a rated project's token carries that project's current
   * PoL, so moving the project moves it on every exchange that lists it.
   */
  tokenPol(token: SimToken): number {
    const project = token.projectSlug === null ? undefined : this.project(token.projectSlug);
    return project ? project.pol[this.lastIndex]! : token.polScore;
  }

  /** Daily mean PoL over all entities of a kind: the index-level PoL. */
  indexPol(kind: EntityKind): number[] {
    let cached = this.indexPolCache.get(kind);
    if (!cached) {
      const list = this.entities(kind);
      cached = this.data.days.map((_, i) => round(list.reduce((sum, e) => sum + e.pol[i]!, 0) / list.length, 5));
      this.indexPolCache.set(kind, cached);
    }
    return cached;
  }

  // Mutations let tests script changes between two reads (a downgrade, a new red flag).

  /** Sets the current (latest) PoL of an entity; its rating follows from the value. */
  setPol(kind: EntityKind, slug: string, pol: number): void {
    const e = this.require(kind, slug);
    e.pol[this.lastIndex] = pol;
    this.indexPolCache.delete(kind);
  }

  setCategoryScore(kind: EntityKind, slug: string, category: string, score: number): void {
    const e = this.require(kind, slug);
    const series = (e.categories as Record<string, { scores: number[] }>)[category];
    if (!series) throw new Error(`unknown category ${category} for ${kind}`);
    series.scores[this.lastIndex] = score;
  }

  addRedFlag(slug: string, which: 'mm' | 'investor', text: string): void {
    const p = this.require('project', slug) as SimProject;
    const current = p.redFlags[which];
    p.redFlags[which] = current === 'none_identified' ? [text] : [...current, text];
  }

  rename(kind: EntityKind, slug: string, name: string): void {
    this.require(kind, slug).name = name;
  }

  private require(kind: EntityKind, slug: string): SimEntity {
    const e = this.entity(kind, slug);
    if (!e) throw new Error(`no simulated ${kind} ${slug}`);
    return e;
  }
}
