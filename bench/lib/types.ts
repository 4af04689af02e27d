import type { Logger } from '../../src/log.js';

export interface BenchOptions {
  quick: boolean;
  /** Injected upstream latency per request, ms. */
  latencyMs: number;
  jitterMs: number;
  /** Simulator in polbot's process instead of a child. */
  inProcess: boolean;
  log: Logger;
}

/** One line of the table. `pass` is null for lines that have no target. */
export interface Row {
  metric: string;
  measured: string;
  target: string;
  pass: boolean | null;
}

export interface ScenarioResult {
  rows: Row[];
  details: Record<string, unknown>;
  /** What could not be measured and why (a missing module, a skipped phase). */
  notes?: string[];
}

export const fmtMs = (ms: number) => (ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(1)} ms`);
