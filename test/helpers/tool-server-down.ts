import { freePort } from './compose.js';

/**
 * The environment of an install on the tool server alone (`POL_SOURCE=mcp`, no REST base URL)
 * whose tool server is down: nothing listens at its URL, so every connection is refused.
 */
export async function toolServerDownEnv(): Promise<Record<string, string>> {
  return { POL_SOURCE: 'mcp', POL_MCP_URL: `http://127.0.0.1:${await freePort()}/mcp` };
}
