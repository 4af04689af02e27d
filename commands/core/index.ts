/**
 * The command core as adapters and the composition root see it. Which commands there are, what
 * each takes and how each option completes stay behind this surface: an adapter renders what it
 * is handed and generates its platform's command list from the specs.
 */
export { createCore, type Core, type CoreMeters, type CoreParts, type Limiter } from './core.js';
export { Registry } from './registry.js';
export { withCommandText } from './run.js';
export { COMMANDS } from './commands.js';
export type { RunResult } from './run.js';
export type { RiskScore } from './score.js';
export { MAX_NAME } from './validate.js';
export type { Caller, FoundGroup, GroupDirectory } from '../kit/context.js';
export type { Args, ArgValue, Choice, CommandSpec, Invocation, OptionSpec } from '../kit/spec.js';
