import type { RESTOptions, ResponseLike } from 'discord.js';

/**
 * Requests to Discord go through Node's own fetch rather than @discordjs/rest's default
 * (its private copy of undici). Every undici copy shares one process-wide dispatcher slot, and
 * the project's undici 7 fills it as soon as it is imported; @discordjs/rest's undici 6 then
 * hands its multipart bodies (built on Node's FormData) to undici 7's agent, which cannot read
 * them, and every upload (a chart PNG) fails with "action is not a function". Node's fetch
 * encodes the body itself before any dispatcher sees it, so uploads work whichever undici
 * loaded first.
 */
const viaFetch = (url: string, init: unknown): Promise<ResponseLike> => fetch(url, init as RequestInit) as Promise<ResponseLike>;

export function restOptions(discord: { apiUrl?: string | undefined }): Partial<RESTOptions> {
  return { ...(discord.apiUrl ? { api: discord.apiUrl } : {}), makeRequest: viaFetch as RESTOptions['makeRequest'] };
}
