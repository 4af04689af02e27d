import { parseArgs } from 'node:util';
import { SimStore } from '../../src/sim/data/store.js';
import { Faults } from '../../src/sim/faults.js';
import { serveStdio } from '../../src/sim/mcp/stdio.js';
import { DEFAULT_SEED, startSimulator } from '../../src/sim/server.js';

const HELP = `Usage: polbot sim [options]

Runs the upstream simulator: both REST services and the MCP tool server, from seeded data.

Options:
  --port N              port to listen on (default 4010; 0 picks a free one)
  --host H              address to bind (default 127.0.0.1)
  --seed S              data seed (default ${DEFAULT_SEED}); the same seed gives the same data
  --as-of YYYY-MM-DD    last day of history (default today, UTC)
  --api-key KEY         key to accept (default: the printed demo key)
  --latency MS          added latency per request
  --jitter MS           extra random latency, 0..MS
  --error-rate R        share of requests answered 500/503 (0..1)
  --rate-limit-rate R   share of requests answered 429 with Retry-After
  --retry-after S       Retry-After seconds for 429s (default 1)
  --health-failing      health answers 503
  --slow-body MS        bodies trickle out over MS milliseconds
  --malformed-rate R    share of answers cut off mid-JSON
  --shape-rate R        share of answers with an unexpected JSON shape
  --reset-rate R        share of connections reset without an answer
  --faults-on REGEX     apply faults only to matching paths
  --mcp-stdio           serve only the MCP tools, over stdin/stdout (for POL_MCP_COMMAND)`;

function num(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || n > max) throw new Error(`--${name} must be a number from ${min} to ${max}`);
  return n;
}

export async function runSim(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      seed: { type: 'string' },
      'as-of': { type: 'string' },
      'api-key': { type: 'string' },
      latency: { type: 'string' },
      jitter: { type: 'string' },
      'error-rate': { type: 'string' },
      'rate-limit-rate': { type: 'string' },
      'retry-after': { type: 'string' },
      'health-failing': { type: 'boolean' },
      'slow-body': { type: 'string' },
      'malformed-rate': { type: 'string' },
      'shape-rate': { type: 'string' },
      'reset-rate': { type: 'string' },
      'faults-on': { type: 'string' },
      'mcp-stdio': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const asOf = values['as-of'] ? new Date(`${values['as-of']}T00:00:00Z`) : undefined;
  if (asOf && Number.isNaN(asOf.getTime())) throw new Error('--as-of must be a date like 2026-11-22');
  const apiKey = values['api-key'];
  if (apiKey !== undefined && !/^svc_[A-Za-z0-9_-]+$/.test(apiKey)) throw new Error('--api-key must look like svc_<KEY_BODY>');
  const faults = Object.fromEntries(
    Object.entries({
      latencyMs: num('latency', values.latency, 0, 600_000),
      jitterMs: num('jitter', values.jitter, 0, 600_000),
      errorRate: num('error-rate', values['error-rate'], 0, 1),
      rateLimitRate: num('rate-limit-rate', values['rate-limit-rate'], 0, 1),
      retryAfterSec: num('retry-after', values['retry-after'], 0, 3600),
      healthFailing: values['health-failing'],
      slowBodyMs: num('slow-body', values['slow-body'], 0, 600_000),
      malformedRate: num('malformed-rate', values['malformed-rate'], 0, 1),
      unexpectedShapeRate: num('shape-rate', values['shape-rate'], 0, 1),
      resetRate: num('reset-rate', values['reset-rate'], 0, 1),
      match: values['faults-on'] ? new RegExp(values['faults-on']) : undefined,
    }).filter(([, v]) => v !== undefined),
  );

  const seed = num('seed', values.seed, 0, 2 ** 31 - 1) ?? DEFAULT_SEED;
  if (values['mcp-stdio']) {
    const store = new SimStore({ seed, ...(asOf ? { asOf } : {}) });
    const simFaults = new Faults(seed);
    simFaults.set(faults);
    process.stderr.write('polbot upstream simulator: MCP tools over stdio (all data is SIMULATED)\n');
    await serveStdio({ store, faults: simFaults });
    return 0;
  }
  const sim = await startSimulator({
    seed,
    port: num('port', values.port, 0, 65_535) ?? 4010,
    host: values.host ?? '127.0.0.1',
    ...(asOf ? { asOf } : {}),
    ...(apiKey ? { apiKey } : {}),
    faults,
  });
  const active = Object.keys(faults);
  process.stdout.write(
    [
      'polbot upstream simulator (all data is SIMULATED)',
      `  REST base URL  ${sim.url}   (e.g. ${sim.url}/projects_data/v1/list)`,
      `  MCP tools      ${sim.mcpUrl}`,
      `  API key        ${sim.apiKey}   (send it as the x-api-key header)`,
      `  seed           ${sim.store.data.seed}, history to ${new Date(sim.store.asOf * 1000).toISOString().slice(0, 10)}`,
      `  faults         ${active.length ? active.join(', ') : 'none'}`,
      'Press Ctrl+C to stop.',
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await sim.close();
  return 0;
}
