import { createCanvas } from '@napi-rs/canvas';
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

/** Draws a config with Chart.js on a Skia canvas and returns PNG bytes of `width * pixelRatio` by `height * pixelRatio`. */
export async function drawPng(config: ChartConfiguration, size: DrawSize): Promise<Buffer> {
  ensureChartJs();
  const canvas = createCanvas(size.width, size.height);
  // Opaque: the background plugin paints every pixel, and reading back an opaque surface is
  // several times cheaper than un-premultiplying an alpha one.
  const ctx = canvas.getContext('2d', { alpha: false });
  const withSize: ChartConfiguration = {
    ...config,
    options: { ...config.options, animation: false, responsive: false, devicePixelRatio: size.pixelRatio },
  };
  let chart: Chart | undefined;
  try {
    chart = new Chart(ctx as unknown as ChartItem, withSize);
    // Read the pixels before destroy(), which clears the canvas.
    return encodePng(canvas.data(), canvas.width, canvas.height);
  } catch (err) {
    throw new ChartRenderError(`chart could not be drawn: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  } finally {
    chart?.destroy();
  }
}
