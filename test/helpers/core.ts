import { afterAll, beforeAll } from 'vitest';
import { startCore, type CoreOptions } from '../../app/core.js';
import type { Core } from '../../commands/core/index.js';
import { loadConfig } from '../../app/config.js';
import { plainInline, typedText } from '../../src/reply/inline.js';
import type { Inline, Reply } from '../../src/reply/model.js';
import type { Simulator } from '../../src/sim/server.js';
import { secretWatch } from './secret-watch.js';
import { startTestSimulator } from './sim.js';

/** A demo-mode core (in-process simulator, REST unless told otherwise). */
export async function demoCore(env: Record<string, string> = {}, options: CoreOptions = {}): Promise<Core> {
  const core = await startCore(loadConfig({ POL_TIMEOUT_MS: '3000', ...env }), options);
  for (const secret of core.upstream.secrets) secretWatch.secret(secret, 'upstream API key');
  return core;
}

export async function ask(core: Core, text: string): Promise<Reply> {
  return (await core.run(text)).reply;
}

/** Every string a person could see in a reply (JSON keys aside). */
export function visibleText(reply: Reply): string {
  const out: string[] = [];
  JSON.stringify(reply, (key, value: unknown) => {
    // Commands behind buttons and usage references are data for the adapters, not text anyone reads.
    if (key === 'png' || key === 'command' || key === 'run' || key === 'usage') return undefined;
    if (typeof value === 'string') out.push(value);
    return value;
  });
  return out.join('\n');
}

/** Inline text with each command written as Slack shows it (`/pol search swap`). */
export function slackText(text: Inline | undefined): string {
  return plainInline(text, (r) => `/pol ${typedText(r)}`);
}

/**
 * Two demo cores for a test file, started before its tests and closed after them: one on REST
 * (the in-process simulator) and one on a second simulator's tool server alone, as an install
 * with only `POL_MCP_URL` has it.
 */
export function useRestAndToolsOnly(): { readonly rest: Core; readonly tools: Core; readonly toolSim: Simulator } {
  let started: { rest: Core; tools: Core; toolSim: Simulator } | undefined;
  beforeAll(async () => {
    const toolSim = await startTestSimulator();
    const [rest, tools] = await Promise.all([
      demoCore(),
      demoCore({ POL_SOURCE: 'mcp', POL_MCP_URL: toolSim.mcpUrl, POL_API_KEY: toolSim.apiKey }),
    ]);
    started = { rest, tools, toolSim };
  });
  afterAll(async () => {
    if (!started) return;
    await Promise.all([started.rest.close(), started.tools.close()]);
    await started.toolSim.close();
  });
  const get = () => {
    if (!started) throw new Error('the cores start in beforeAll; use them inside tests');
    return started;
  };
  return {
    get rest() {
      return get().rest;
    },
    get tools() {
      return get().tools;
    },
    get toolSim() {
      return get().toolSim;
    },
  };
}
