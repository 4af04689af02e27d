import card from './card.js';
import chart from './chart.js';
import compare from './compare.js';
import digest from './digest.js';
import digestAdd from './digest-add.js';
import digestList from './digest-list.js';
import digestPause from './digest-pause.js';
import digestPreview from './digest-preview.js';
import digestRemove from './digest-remove.js';
import digestResume from './digest-resume.js';
import exchange from './exchange.js';
import flags from './flags.js';
import health from './health.js';
import help from './help.js';
import index from './index-pol.js';
import project from './project.js';
import search from './search.js';
import top from './top.js';
import trending from './trending.js';
import type { CommandSpec } from './kit/spec.js';

/**
 * Every command, in the order help lists them. Adding a command is one module in this folder and
 * one line here; the typed grammar, help and the Discord commands follow from its declaration.
 */
export const COMMANDS: readonly CommandSpec[] = [
  card,
  project,
  exchange,
  flags,
  chart,
  compare,
  top,
  search,
  trending,
  index,
  health,
  help,
  digest,
  digestAdd,
  digestList,
  digestRemove,
  digestPause,
  digestResume,
  digestPreview,
];
