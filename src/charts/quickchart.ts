import type { ChartConfiguration } from 'chart.js';
import QuickChartModule from 'quickchart-js';
import { request } from 'undici';
import { serializeForQuickChart } from './portable.js';
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

export function parseQuickChartBase(baseUrl: string): { scheme: string; host: string } {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ChartRenderError(`QuickChart URL is not a URL: ${JSON.stringify(baseUrl)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ChartRenderError(`QuickChart URL must be http(s): ${url.protocol}`);
  // quickchart-js builds `${scheme}://${host}/chart`, so a reverse-proxy prefix rides along with the host.
  return { scheme: url.protocol.slice(0, -1), host: url.host + url.pathname.replace(/\/+$/, '') };
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

function quickChartFor(config: ChartConfiguration, target: QuickChartTarget): InstanceType<QuickChartClass> {
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
  return qc;
}

/** A GET URL that QuickChart (Chart.js 4) renders to the same chart the local renderer draws. */
export function quickChartUrl(config: ChartConfiguration, target: QuickChartTarget): string {
  return quickChartFor(config, target).getUrl();
}

/** Slack's image blocks take URLs of up to 3,000 characters, Discord's embeds 2,048. */
export const MAX_IMAGE_URL = 2_000;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const MAX_PNG_BYTES = 8 * 1024 * 1024;

/**
 * The chart as PNG bytes, rendered by QuickChart from a POST: for charts whose GET URL is too long
 * for the platforms (several series), which are then uploaded like locally drawn ones. Sent with
 * undici rather than quickchart-js's `toBinary()`, which has no timeout and no size limit.
 */
export async function quickChartPng(config: ChartConfiguration, target: QuickChartTarget, timeoutMs = 10_000): Promise<Buffer> {
  const qc = quickChartFor(config, target);
  const { scheme, host } = parseQuickChartBase(target.baseUrl);
  let status: number;
  let body: Buffer;
  try {
    const res = await request(`${scheme}://${host}/chart`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(qc.getPostData()),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    status = res.statusCode;
    const declared = Number(res.headers['content-length']);
    if (declared > MAX_PNG_BYTES) {
      await res.body.dump();
      throw new ChartRenderError(`QuickChart answered with ${declared} bytes, more than a chart can be`);
    }
    body = Buffer.from(await res.body.arrayBuffer());
  } catch (err) {
    if (err instanceof ChartRenderError) throw err;
    throw new ChartRenderError(`QuickChart could not be reached: ${(err as { code?: string }).code ?? (err as Error).name}`, { cause: err });
  }
  if (status !== 200) throw new ChartRenderError(`QuickChart answered ${status}`);
  if (body.length > MAX_PNG_BYTES || !body.subarray(0, 8).equals(PNG_SIGNATURE)) throw new ChartRenderError('QuickChart did not answer with a PNG');
  return body;
}
