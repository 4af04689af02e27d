import { createCore, type Core, type CoreOptions } from '../../src/app/core.js';
import { loadConfig } from '../../src/config.js';
import type { Reply } from '../../src/reply/model.js';

/** A demo-mode core (in-process simulator, REST unless told otherwise). */
export function demoCore(env: Record<string, string> = {}, options: CoreOptions = {}): Promise<Core> {
  return createCore(loadConfig({ POL_TIMEOUT_MS: '3000', ...env }), options);
}

export async function ask(core: Core, text: string): Promise<Reply> {
  return (await core.run(text)).reply;
}

/** Every string a person could see in a reply (JSON keys aside). */
export function visibleText(reply: Reply): string {
  const out: string[] = [];
  JSON.stringify(reply, (key, value: unknown) => {
    if (key === 'png' || key === 'command') return undefined;
    if (typeof value === 'string') out.push(value);
    return value;
  });
  return out.join('\n');
}
