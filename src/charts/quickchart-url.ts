import { ChartRenderError } from './types.js';

/** The QuickChart base URL as quickchart-js takes it; checked at start-up, so a typo fails there. */
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
