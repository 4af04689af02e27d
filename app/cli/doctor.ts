import { parseArgs } from 'node:util';
import { checkContract, newTap, type ContractRow, type Samples } from '../../src/api/contract-check.js';
import { SOURCE_LABEL } from '../../src/api/diagnose.js';
import type { DataSource } from '../../src/api/source.js';
import { connectUpstream } from '../../src/api/upstream.js';
import { loadConfig } from '../config.js';

const HELP = `Usage: polbot doctor [--project SLUG] [--exchange SLUG] [--json]

Checks the configured upstream (the simulator in demo mode) against what polbot expects: every
route and tool polbot uses is called once and its answer read against the schemas and the domain
rules (PoL 0..1, scores 0..100, ratings AAA..D, ...). One row per operation: ok, or the first
difference. Exit status 0 only when every operation agrees.
  --project SLUG    the project to ask about (default: the first of the project list)
  --exchange SLUG   the exchange to ask about (default: the first of the exchange list)
  --json            print the rows as JSON`;

export async function runDoctor(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      project: { type: 'string' },
      exchange: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const config = loadConfig();
  const tap = newTap();
  const upstream = await connectUpstream(config, {
    onExchange: (e) => void tap.routes.push(e.route),
    onMcpCall: (route) => void tap.routes.push(route),
    onUnreadable: (route, fields, rows) => void tap.unreadable.push({ route, fields, rows }),
  });
  try {
    const samples = await pickSamples(upstream.members, values.project, values.exchange);
    const rows: ContractRow[] = [];
    // One source after the other: the tap records what the current operation touched.
    for (const member of upstream.members) rows.push(...(await checkContract(member, tap, samples)));
    const differ = rows.filter((r) => !r.ok).length;
    if (values.json) process.stdout.write(`${JSON.stringify({ agree: differ === 0, rows }, null, 2)}\n`);
    else {
      const against = upstream.sim
        ? 'the built-in simulator (demo mode)'
        : `the configured ${upstream.members.map((m) => SOURCE_LABEL[m.name]).join(' and ')}`;
      process.stdout.write(`polbot doctor: ${rows.length} operations against ${against}\n\n${table(rows)}\n\n`);
      process.stdout.write(
        differ === 0
          ? 'Every operation agrees with what polbot expects.\n'
          : `${differ} of ${rows.length} operations differ from what polbot expects.\n`,
      );
    }
    return differ === 0 ? 0 : 1;
  } finally {
    await upstream.close();
  }
}

/** Samples from the upstream's own lists, so that the check asks about entities that exist. */
async function pickSamples(members: readonly DataSource[], project: string | undefined, exchange: string | undefined): Promise<Samples> {
  const first = async (kind: 'project' | 'exchange') => {
    for (const m of members.filter((s) => s.supports('list', kind))) {
      const list = await m.list(kind).then(
        (r) => r.data,
        () => [],
      );
      if (list[0]) return list[0];
    }
    return undefined;
  };
  const p = project ? undefined : await first('project');
  const e = exchange ? undefined : await first('exchange');
  return {
    project: project ?? p?.slug ?? 'bitcoin',
    projectName: p?.name ?? project ?? 'bitcoin',
    // Without REST there is no exchange list to pick from; the documents' own example stands in.
    exchange: exchange ?? e?.slug ?? 'binance',
  };
}

function table(rows: ContractRow[]): string {
  const lines = [['source', 'operation', 'route', 'result'], ...rows.map((r) => [r.source, r.operation, routesText(r.routes), r.result])];
  const widths = [0, 1, 2].map((i) => Math.max(...lines.map((l) => l[i]!.length)));
  return lines.map((l) => l.map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c)).join('  ')).join('\n');
}

/** A few routes by name; the tool server's five score tools behind one operation read as one and "+4". */
function routesText(routes: string[]): string {
  if (routes.length === 0) return '—';
  return routes.length <= 2 ? routes.join(', ') : `${routes[0]} +${routes.length - 1}`;
}
