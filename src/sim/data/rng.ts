import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformInt } from 'pure-rand/distribution/uniformInt';

/** A seeded random source. Each entity gets its own stream, so adding an entity never shifts another's numbers. */
export class Rng {
  private readonly gen;

  constructor(seed: number) {
    this.gen = xoroshiro128plus(seed | 0);
  }

  /** Stream derived from a base seed and a label (FNV-1a of the label mixed into the seed). */
  static derive(seed: number, label: string): Rng {
    let h = 0x811c9dc5 ^ (seed | 0);
    for (let i = 0; i < label.length; i++) {
      h ^= label.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    return new Rng(h);
  }

  int(min: number, max: number): number {
    return uniformInt(this.gen, min, max);
  }

  /** Uniform in [0, 1). */
  float(): number {
    return uniformInt(this.gen, 0, 0x3fffffff) / 0x40000000;
  }

  range(min: number, max: number): number {
    return min + (max - min) * this.float();
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  /** Standard normal via Box-Muller. */
  normal(): number {
    const u = Math.max(this.float(), 1e-9);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.float());
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)] as T;
  }

  sample<T>(items: readonly T[], n: number): T[] {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
    }
    return copy.slice(0, Math.min(n, copy.length));
  }
}
