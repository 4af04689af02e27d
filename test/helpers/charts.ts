import { createCanvas, loadImage } from '@napi-rs/canvas';
import type { CategoryPoint, PolPoint, ReservesPoint, ValuePoint } from '../../src/api/domain.js';

export const DAY = 86_400;
/** 2025-11-22T00:00:00Z, the last day of every fixture series. */
export const LAST_DAY = Date.UTC(2025, 10, 22) / 1000;

const days = (n: number) => Array.from({ length: n }, (_, i) => LAST_DAY - (n - 1 - i) * DAY);

export function polPoints(n: number, seed = 0): PolPoint[] {
  return days(n).map((timestamp, i) => ({ timestamp, pol: 0.002 + 0.0008 * Math.sin(i / 9 + seed) + 0.0001 * Math.cos(i * 1.3) }));
}

export function categoryPoints(n: number, categories: readonly string[]): CategoryPoint[] {
  return days(n).map((timestamp, i) => ({
    timestamp,
    scores: Object.fromEntries(categories.map((c, k) => [c, { score: 60 + 10 * Math.sin(i / 11 + k) + k * 4, rating: 'A' }])),
  }));
}

export function reservesPoints(n: number): ReservesPoint[] {
  return days(n).map((timestamp, i) => ({
    timestamp,
    reserves: 1.25e9 + 8e7 * Math.sin(i / 13),
    liabilities: 1.1e9 + 6e7 * Math.cos(i / 10),
  }));
}

export function valuePoints(n: number, base: number, amp: number): ValuePoint[] {
  return days(n).map((timestamp, i) => ({ timestamp, value: base + amp * Math.sin(i / 8) }));
}

export interface Pixels {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}

/** Decodes a PNG the way a client would, independently of our encoder. */
export async function decode(png: Buffer): Promise<Pixels> {
  const image = await loadImage(png);
  const canvas = createCanvas(image.width, image.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(image, 0, 0);
  return { width: image.width, height: image.height, data: ctx.getImageData(0, 0, image.width, image.height).data };
}

/** Pixels whose colour differs noticeably between two same-size images, within rows [y0, y1). */
export function differingPixels(a: Pixels, b: Pixels, y0: number, y1: number, x0 = 0, x1 = a.width): number {
  let n = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * a.width + x) * 4;
      const d = Math.abs(a.data[i]! - b.data[i]!) + Math.abs(a.data[i + 1]! - b.data[i + 1]!) + Math.abs(a.data[i + 2]! - b.data[i + 2]!);
      if (d > 60) n++;
    }
  }
  return n;
}

/** Pixels clearly darker than the white background (text, lines) within a region. */
export function inkPixels(p: Pixels, y0: number, y1: number, x0 = 0, x1 = p.width): number {
  let n = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * p.width + x) * 4;
      if (p.data[i]! + p.data[i + 1]! + p.data[i + 2]! < 600) n++;
    }
  }
  return n;
}
