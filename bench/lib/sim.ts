import { fileURLToPath } from 'node:url';
import type { FaultSettings } from '../../src/sim/faults.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { forkChild } from './child.js';

export interface CounterSnapshot {
  total: number;
  /** Concrete path and query → requests. */
  byPath: [string, number][];
  byTool: [string, number][];
}

/** The simulator the benchmark talks to, wherever it runs. */
export interface SimHandle {
  where: 'child' | 'in-process';
  url: string;
  mcpUrl: string;
  apiKey: string;
  setFaults(settings: Partial<FaultSettings>): Promise<void>;
  counter(): Promise<CounterSnapshot>;
  resetCounter(): Promise<void>;
  close(): Promise<void>;
}

export interface SimStartOptions {
  seed?: number;
  extraProjects?: number;
  /** Run in this process instead of a child (the upstream then shares polbot's event loop). */
  inProcess?: boolean;
}

export async function startSim(options: SimStartOptions = {}): Promise<SimHandle> {
  const simOptions = { seed: options.seed ?? 42, ...(options.extraProjects ? { extraProjects: options.extraProjects } : {}) };
  if (options.inProcess) return inProcess(await startSimulator(simOptions));
  const child = await forkChild<{ url: string; mcpUrl: string; apiKey: string }>(
    fileURLToPath(new URL('./sim-child.ts', import.meta.url)),
    [JSON.stringify(simOptions)],
  );
  return {
    where: 'child',
    ...child.ready,
    setFaults: async (settings) => void (await child.call('faults', { settings })),
    counter: async () => (await child.call('counter')).counter as CounterSnapshot,
    resetCounter: async () => void (await child.call('reset')),
    close: () => child.close(),
  };
}

function inProcess(sim: Simulator): SimHandle {
  return {
    where: 'in-process',
    url: sim.url,
    mcpUrl: sim.mcpUrl,
    apiKey: sim.apiKey,
    setFaults: async (settings) => sim.faults.set(settings),
    counter: async () => ({ total: sim.counter.total, byPath: [...sim.counter.byPath], byTool: [...sim.counter.byTool] }),
    resetCounter: async () => sim.counter.reset(),
    close: () => sim.close(),
  };
}
