import { setImmediate as turn } from 'node:timers/promises';
import { bulkhead } from 'cockatiel';
import { createCanvas, type Canvas, type SKRSContext2D } from '@napi-rs/canvas';
import { Chart, registerables, type ChartConfiguration, type ChartItem } from 'chart.js';
import { ensureChartFont } from './font.js';
import { encodePng } from './png.js';
import { ChartRenderError } from './types.js';

let chartJsReady = false;

/** Chart.js keeps registrations and defaults globally: set them up once per process. */
function ensureChartJs(): void {
  if (chartJsReady) return;
  const family = ensureChartFont();
  Chart.register(...registerables);
  Chart.defaults.font.family = family;
  Chart.defaults.color = '#374151';
  chartJsReady = true;
}

export interface DrawSize {
  /** CSS pixels. */
  width: number;
  height: number;
  pixelRatio: number;
}

/**
 * Draws a config with Chart.js on a Skia canvas and returns PNG bytes of `width * pixelRatio` by
 * `height * pixelRatio`.
 *
 * The surface is opaque: the background plugin paints every pixel anyway, and reading back an
 * opaque surface was measured ~5 ms faster per 1600x800 chart (no un-premultiplying). Chart.js
 * applies the pixel ratio by resizing the canvas it is given, and a resized @napi-rs/canvas surface
 * comes back with alpha; so the surface is created at device size and Chart.js sees a stand-in
 * canvas it may resize freely, reached through a context that forwards everything else.
 *
 * One surface serves every chart of its size. A fresh 5 MB surface per chart cost several
 * milliseconds to allocate and clear, and its native memory is only released by a finalizer that
 * Node runs after the event loop turns: in a burst of renders that held hundreds of megabytes of
 * dead surfaces. Drawing is synchronous from `new Chart` to the pixel copy, so charts never share
 * it; the PNG is then compressed off the event loop.
 *
 * Each chart holds two 5 MB copies of its pixels until its PNG is done, so only a few are drawn
 * ahead of their compression: a burst of renders waits its turn instead of piling up copies.
 */
export function drawPng(config: ChartConfiguration, size: DrawSize): Promise<Buffer> {
  return encoding.execute(async () => {
    // Drawing holds the event loop for ~15 ms: requests that have already arrived (a chat
    // platform waiting for its acknowledgement) are taken in first.
    await turn();
    return drawAndEncode(config, size);
  });
}

const encoding = bulkhead(2, Number.MAX_SAFE_INTEGER);

async function drawAndEncode(config: ChartConfiguration, size: DrawSize): Promise<Buffer> {
  ensureChartJs();
  // Chart.js floors the device size the same way.
  const deviceWidth = Math.floor(size.width * size.pixelRatio);
  const deviceHeight = Math.floor(size.height * size.pixelRatio);
  const { canvas, ctx, standIn } = surfaceFor(deviceWidth, deviceHeight);
  // Each chart starts from a blank state (a chart that threw may have left clips or saved
  // states behind), and from CSS size: Chart.js sets the stand-in to device size while drawing.
  ctx.reset();
  standIn.width = size.width;
  standIn.height = size.height;
  const withSize: ChartConfiguration = {
    ...config,
    options: { ...config.options, animation: false, responsive: false, devicePixelRatio: size.pixelRatio },
  };
  let chart: Chart | undefined;
  let pixels: Uint8Array;
  try {
    chart = new Chart(ctx as unknown as ChartItem, withSize);
    // A copy, read before destroy() clears the canvas; the surface is free for the next chart.
    pixels = canvas.data();
  } catch (err) {
    throw new ChartRenderError(`chart could not be drawn: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  } finally {
    chart?.destroy();
  }
  return encodePng(pixels, deviceWidth, deviceHeight);
}

interface StandIn {
  width: number;
  height: number;
  getContext: () => SKRSContext2D;
}

interface Surface {
  canvas: Canvas;
  /** The real context behind a proxy whose `canvas` is the stand-in. */
  ctx: SKRSContext2D;
  standIn: StandIn;
}

let surface: Surface | undefined;

function surfaceFor(deviceWidth: number, deviceHeight: number): Surface {
  if (surface?.canvas.width === deviceWidth && surface.canvas.height === deviceHeight) return surface;
  const canvas = createCanvas(deviceWidth, deviceHeight);
  const standIn: StandIn = { width: 0, height: 0, getContext: () => ctx };
  const ctx = withStandInCanvas(canvas.getContext('2d', { alpha: false }), standIn);
  surface = { canvas, ctx, standIn };
  return surface;
}

/** The context, except that `ctx.canvas` is a plain object sized in CSS pixels. */
function withStandInCanvas(ctx: SKRSContext2D, standIn: StandIn): SKRSContext2D {
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(ctx, {
    get(target, prop) {
      if (prop === 'canvas') return standIn;
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      // Native methods must run with the real context as `this`.
      let fn = bound.get(prop);
      if (fn === undefined) {
        fn = (value as (...args: unknown[]) => unknown).bind(target);
        bound.set(prop, fn);
      }
      return fn;
    },
    set(target, prop, value: unknown) {
      return Reflect.set(target, prop, value, target);
    },
  });
}
