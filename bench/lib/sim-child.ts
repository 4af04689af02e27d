/**
 * The simulator in its own process, so the upstream's CPU and memory stay out of polbot's event
 * loop and RSS, as a real upstream's would.
 */
import type { FaultSettings } from '../../src/sim/faults.js';
import { startSimulator, type SimulatorOptions } from '../../src/sim/server.js';
import { serveParent } from './child.js';

const options = JSON.parse(process.argv[2] ?? '{}') as SimulatorOptions;
const sim = await startSimulator({ ...options, port: 0, host: '127.0.0.1' });

serveParent(
  { url: sim.url, mcpUrl: sim.mcpUrl, apiKey: sim.apiKey },
  (msg) => {
    switch (msg.op) {
      case 'faults':
        sim.faults.set(msg.settings as Partial<FaultSettings>);
        return {};
      case 'counter':
        return { counter: { total: sim.counter.total, byPath: [...sim.counter.byPath], byTool: [...sim.counter.byTool] } };
      case 'reset':
        sim.counter.reset();
        return {};
      default:
        throw new Error(`unknown op ${msg.op}`);
    }
  },
  () => sim.close(),
);
