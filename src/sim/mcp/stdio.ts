import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { SimStore } from '../data/store.js';
import type { Faults } from '../faults.js';
import { buildServer } from './handler.js';

/**
 * The same tool server over stdio, for clients that start the upstream as a child process
 * (`POL_MCP_COMMAND`). Stdout carries the protocol only; anything human goes to stderr.
 */
export async function serveStdio(deps: { store: SimStore; faults: Faults }): Promise<void> {
  const server = buildServer(deps);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  await closed;
}
