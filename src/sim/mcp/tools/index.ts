import type { ToolDef } from './common.js';
import { exchangeTools } from './exchanges.js';
import { generalTools } from './general.js';
import { projectTools } from './projects.js';
import { projectScoreTools } from './scores.js';

/** The 23 tools of the tool document, in its order. */
export const TOOLS: readonly ToolDef[] = [...generalTools, ...projectTools, ...projectScoreTools, ...exchangeTools];

export const TOOL_NAMES: ReadonlySet<string> = new Set(TOOLS.map((t) => t.name));
