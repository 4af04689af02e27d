import type { ChartConfiguration } from 'chart.js';
import QuickChartModule from 'quickchart-js';
import { request } from 'undici';
import { pngSize } from './png.js';
import { serializeForQuickChart } from './portable.js';
import { parseQuickChartBase } from './quickchart-url.js';
import { ChartRenderError } from './types.js';

/**
 * The package's types describe an ES default export from a CommonJS-typed package, which NodeNext
 * reads as `{ default }`; at run time the ESM build hands over the class itself.
 */
type QuickChartClass = typeof QuickChartModule.default;
const QuickChart: QuickChartClass =
  (QuickChartModule as unknown as { default?: QuickChartClass }).default ?? (QuickChartModule as unknown as QuickChartClass);

export interface QuickChartTarget {
  /** e.g. `https://quickchart.io` or `http://charts.internal:3400`; a path prefix is kept. */
  baseUrl: string;
  width: number;
  height: number;
  pixelRatio: number;
}

/**
 * Options that only matter to an interactive chart or that QuickChart already sets; dropped because
 * every character counts in a GET URL.
 */
const INTERACTIVE_ONLY = ['animation', 'responsive', 'maintainAspectRatio', 'events', 'normalized'] as const;
const POINT_INTERACTION = ['pointHoverRadius', 'pointHitRadius'] as const;

function forQuickChart(config: ChartConfiguration): ChartConfiguration {
  const options: Record<string, unknown> = { ...config.options };
  for (const k of INTERACTIVE_ONLY) delete options[k];
  const plugins = { ...(options.plugins as Record<string, unknown> | undefined) };
  delete plugins.tooltip;
  options.plugins = plugins;
  const datasets = config.data.datasets.map((d) => {
    const copy: Record<string, unknown> = { ...d };
    for (const k of POINT_INTERACTION) delete copy[k];
    return copy;
  });
  return { ...config, data: { ...config.data, datasets }, options } as unknown as ChartConfiguration;
}

function quickChartFor(config: ChartConfiguration, target: QuickChartTarget): { qc: InstanceType<QuickChartClass>; base: string } {
  const { scheme, host } = parseQuickChartBase(target.baseUrl);
  const qc = new QuickChart();
  qc.setConfig(serializeForQuickChart(forQuickChart(config)))
    .setVersion('4')
    .setScheme(scheme)
    .setHost(host)
    .setWidth(target.width)
    .setHeight(target.height)
    .setDevicePixelRatio(target.pixelRatio)
    .setBackgroundColor('#ffffff')
    .setFormat('png');
  return { qc, base: `${scheme}://${host}` };
}

/** Slack's image blocks take URLs of up to 3,000 characters, Discord's embeds 2,048. */
export const MAX_IMAGE_URL = 2_000;

const MAX_PNG_BYTES = 8 * 1024 * 1024;

/**
 * The chart from QuickChart (Chart.js 4), drawn as the local renderer draws it: as a GET URL when
 * that fits `maxUrl`, else as PNG bytes from a POST (several series make long URLs), which are
 * then uploaded like locally drawn ones.
 */
export async function quickChart(
  config: ChartConfiguration,
  target: QuickChartTarget,
  maxUrl = MAX_IMAGE_URL,
  timeoutMs = 10_000,
): Promise<{ url: string } | { png: Buffer }> {
  const { qc, base } = quickChartFor(config, target);
  const url = qc.getUrl();
  if (url.length <= maxUrl) return { url };
  return { png: await postForPng(`${base}/chart`, qc.getPostData(), timeoutMs) };
}

/** Sent with undici rather than quickchart-js's `toBinary()`, which has no timeout and no size limit. */
async function postForPng(url: string, payload: unknown, timeoutMs: number): Promise<Buffer> {
  let status: number;
  const chunks: Buffer[] = [];
  try {
    const res = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    status = res.statusCode;
    let bytes = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > MAX_PNG_BYTES) {
        res.body.destroy();
        throw new ChartRenderError(`QuickChart answered with more than ${MAX_PNG_BYTES} bytes, more than a chart can be`);
      }
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof ChartRenderError) throw err;
    throw new ChartRenderError(`QuickChart could not be reached: ${(err as { code?: string }).code ?? (err as Error).name}`, {
      cause: err,
    });
  }
  if (status !== 200) throw new ChartRenderError(`QuickChart answered ${status}`);
  const body = Buffer.concat(chunks);
  if (pngSize(body) === null) throw new ChartRenderError('QuickChart did not answer with a PNG');
  return body;
}
