import type { ChartConfiguration } from 'chart.js';
import QuickChartModule from 'quickchart-js';
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

/** A GET URL that QuickChart (Chart.js 4) renders to the same chart the local renderer draws. */
export function quickChartUrl(config: ChartConfiguration, target: QuickChartTarget): string {
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
  return qc.getUrl();
}
