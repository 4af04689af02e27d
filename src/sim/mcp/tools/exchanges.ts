import { EXCHANGE_CATEGORIES } from '../../data/scales.js';
import type { ToolDef } from './common.js';
import { dynamicTool, scoreTool } from './scores.js';

/** The only exchange tools are scores: no tool resolves exchange slugs. */
export const exchangeTools: ToolDef[] = [...EXCHANGE_CATEGORIES.map((c) => scoreTool('exchange', c)), dynamicTool('exchange')];
