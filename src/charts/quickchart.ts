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

/** A GET URL that QuickChart (Chart.js 4) renders to the same chart the local renderer draws. */
export function quickChartUrl(config: ChartConfiguration, target: QuickChartTarget): string {
  const { scheme, host } = parseQuickChartBase(target.baseUrl);
  const qc = new QuickChart();
  qc.setConfig(serializeForQuickChart(config))
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
