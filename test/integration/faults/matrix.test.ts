import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Simulator } from '../../../src/sim/server.js';
import {
  classify,
  COMMANDS,
  truthOf,
  viaCore,
  viaDiscord,
  viaDiscordButton,
  viaDiscordChoice,
  viaSlack,
  viaSlackButton,
  viaSlackChoice,
  viaTelegram,
  viaTelegramButton,
  viaTelegramChoice,
  type Attempt,
  type Cell,
  type CommandSpec,
  type Observed,
  type Truth,
  type Via,
} from '../../helpers/faults/observe.js';
import {
  BREAKER_COOLDOWN_MS,
  slackCaller,
  STALE_RETRY_MS,
  startFaultStack,
  type FaultStack,
  type SourceName,
} from '../../helpers/faults/stack.js';

/**
 * Every fault the simulator can inject, through every command, on both sources and all three
 * adapters (typed as a command, clicked as a button on one of polbot's messages, and picked from
 * the candidates offered for an ambiguous name), from a cold cache and from a warm but expired one.
 * What the person got is classified (see Cell in observe.ts) from what the fake Slack, the fake
 * Discord and the fake Telegram received and from the core's own reply, and compared cell by cell
 * with the table below.
 *
 * Telegram is covered for every command. polbot sends at most one message a second into a chat, so
 * each Telegram cell is asked by a person of its own in their private chat; what a phase still waits
 * for is help, two messages a second apart. With Telegram the file takes 10 to 12 s longer on 2 cores.
 */

/**
 * Longer than any deadline and than the recovery bound: an upstream that stops answering, as far
 * as polbot can tell. Whatever still waits on it after the fault is cleared shows as no recovery.
 */
const HANG_MS = 6_000;

interface Fault {
  id: string;
  apply(sim: Simulator): void;
}

const FAULTS: readonly Fault[] = [
  { id: 'timeout', apply: (sim) => sim.faults.set({ latencyMs: HANG_MS }) },
  // Retry-After longer than the deadline: waiting for it would only make the answer later.
  { id: '429', apply: (sim) => sim.faults.set({ rateLimitRate: 1, retryAfterSec: 2 }) },
  { id: '500', apply: (sim) => sim.faults.next(/./, { kind: 'status', status: 500 }, Number.MAX_SAFE_INTEGER) },
  { id: '503', apply: (sim) => sim.faults.next(/./, { kind: 'status', status: 503 }, Number.MAX_SAFE_INTEGER) },
  { id: 'unhealthy', apply: (sim) => sim.faults.set({ healthFailing: true }) },
  { id: 'malformed', apply: (sim) => sim.faults.set({ malformedRate: 1 }) },
  { id: 'shape', apply: (sim) => sim.faults.set({ unexpectedShapeRate: 1 }) },
  { id: 'reset', apply: (sim) => sim.faults.set({ resetRate: 1 }) },
  { id: 'slow', apply: (sim) => sim.faults.set({ slowBodyMs: HANG_MS }) },
];

/**
 * The expected matrix. Columns are the faults above (429 with Retry-After; 500 and 503 on every
 * route; unhealthy = the upstream's health routes failing; malformed JSON; an unexpected shape; a
 * connection reset; a slow body). `a/b` means REST/MCP where the sources differ. Command rows hold
 * for the core, Slack, Discord and Telegram alike, typed, clicked or picked.
 *
 * cold  = empty cache: a clear message is the best anyone can do.
 * stale = every value cached but expired: the last good data, marked stale with its age.
 *
 * With POL_SOURCE=mcp in demo mode both the tool server and REST are configured, and every fault
 * hits both: failover has nowhere to go, so the cells are those of REST alone.
 */
const EXPECTED = `
  command         | state | timeout  | 429      | 500      | 503      | unhealthy | malformed | shape       | reset    | slow
  project card    | cold  | message  | message  | message  | message  | ok        | message   | message     | message  | message
  project card    | stale | stale    | stale    | stale    | stale    | ok        | stale     | stale       | stale    | stale
  exchange card   | cold  | message  | message  | message  | message  | ok        | message   | message     | message  | message
  exchange card   | stale | stale    | stale    | stale    | stale    | ok        | stale     | stale       | stale    | stale
  chart           | cold  | message  | message  | message  | message  | ok        | message   | message     | message  | message
  chart           | stale | stale    | stale    | stale    | stale    | ok        | stale     | stale       | stale    | stale
  compare         | cold  | message  | message  | message  | message  | ok        | message   | message     | message  | message
  compare         | stale | stale    | stale    | stale    | stale    | ok        | stale     | stale       | stale    | stale
  flags           | cold  | message  | message  | message  | message  | ok        | message   | message     | message  | message
  flags           | stale | stale    | stale    | stale    | stale    | ok        | stale     | stale       | stale    | stale
  top             | cold  | message  | message  | message  | message  | ok        | message   | message     | message  | message
  top             | stale | stale    | stale    | stale    | stale    | ok        | stale     | stale       | stale    | stale
  search          | cold  | message  | message  | message  | message  | ok        | message   | message     | message  | message
  search          | stale | stale    | stale    | stale    | stale    | ok        | stale     | stale       | stale    | stale
  trending        | cold  | message  | message  | message  | message  | ok        | message   | message     | message  | message
  trending        | stale | stale    | stale    | stale    | stale    | ok        | stale     | stale       | stale    | stale
  index           | cold  | message  | message  | message  | message  | ok        | message   | message     | message  | message
  index           | stale | stale    | stale    | stale    | stale    | ok        | stale     | stale       | stale    | stale
  health          | cold  | reported | reported | reported | reported | reported  | reported  | reported    | reported | reported
  health          | stale | reported | reported | reported | reported | reported  | reported  | reported    | reported | reported
  help            | cold  | ok       | ok       | ok       | ok       | ok        | ok        | ok          | ok       | ok
  help            | stale | ok       | ok       | ok       | ok       | ok        | ok        | ok          | ok       | ok
  digest list     | cold  | ok       | ok       | ok       | ok       | ok        | ok        | ok          | ok       | ok
  digest list     | stale | ok       | ok       | ok       | ok       | ok        | ok        | ok          | ok       | ok
  digest preview  | cold  | message  | message  | message  | message  | ok        | message   | message     | message  | message
  digest preview  | stale | stale    | stale    | stale    | stale    | ok        | stale     | stale       | stale    | stale
  digest add      | cold  | message  | message  | message  | message  | ok        | message   | message     | message  | message
  digest add      | stale | ok       | ok       | ok       | ok       | ok        | ok        | ok          | ok       | ok
  /healthz during | cold  | degraded | degraded | degraded | degraded | degraded  | degraded  | degraded    | degraded | degraded
  /healthz during | stale | degraded | degraded | degraded | degraded | degraded  | degraded  | degraded    | degraded | degraded
  /healthz after  | cold  | ok       | ok       | ok       | ok       | ok        | ok        | ok          | ok       | ok
  /healthz after  | stale | ok       | ok       | ok       | ok       | ok        | ok        | ok          | ok       | ok
  answers after   | cold  | ok       | ok       | ok       | ok       | ok        | ok        | ok          | ok       | ok
  answers after   | stale | ok       | ok       | ok       | ok       | ok        | ok        | ok          | ok       | ok
`;

const SOURCES: readonly SourceName[] = ['rest', 'mcp'];
const STATES = ['cold', 'stale'] as const;
type State = (typeof STATES)[number];
const VIAS: readonly Via[] = [
  'core',
  'slack',
  'slack button',
  'slack choice',
  'discord',
  'discord button',
  'discord choice',
  'telegram',
  'telegram button',
  'telegram choice',
];
/** Rows about the service as a whole rather than one command. */
const HEALTHZ_DURING = '/healthz during';
const HEALTHZ_AFTER = '/healthz after';
const ANSWERS_AFTER = 'answers after';
/** How long /healthz may take to show the fault, and polbot to recover once the fault is gone. */
const HEALTHZ_BOUND_MS = 3_000;
const RECOVERY_BOUND_MS = 3_000;

type Value = Cell | 'degraded' | 'not degraded' | 'not recovered';

/** `source fault state row` -> expected value. */
function parseExpected(table: string): Map<string, string> {
  const [head, ...rows] = table
    .trim()
    .split('\n')
    .map((l) => l.split('|').map((c) => c.trim()));
  const faults = head!.slice(2);
  const out = new Map<string, string>();
  expectSameList(
    'faults',
    faults,
    FAULTS.map((f) => f.id),
  );
  for (const row of rows) {
    const [command, state, ...cells] = row as [string, string, ...string[]];
    cells.forEach((cell, i) => {
      const [rest, mcp = rest] = cell.split('/') as [string, string?];
      out.set(key('rest', faults[i]!, state, command), rest);
      out.set(key('mcp', faults[i]!, state, command), mcp);
    });
  }
  const rowNames = [...new Set(rows.map((r) => r[0]!))];
  expectSameList('rows', rowNames, [...COMMANDS.map((c) => c.id), HEALTHZ_DURING, HEALTHZ_AFTER, ANSWERS_AFTER]);
  return out;
}

function expectSameList(what: string, got: readonly string[], want: readonly string[]): void {
  if (got.join('|') !== want.join('|'))
    throw new Error(`expected matrix ${what} ${JSON.stringify(got)} do not match ${JSON.stringify(want)}`);
}

const key = (source: string, fault: string, state: string, row: string) => `${source} ${fault} ${state} ${row}`;

const EXPECTED_CELLS = parseExpected(EXPECTED);

/** Observed value per cell (source, fault, state, row) and way in; `healthz` for the service-wide rows. */
const observed = new Map<string, Map<Via | 'healthz', { value: Value; why?: string }>>();

function record(source: string, fault: string, state: string, row: string, via: Via | 'healthz', o: { value: Value; why?: string }): void {
  const k = key(source, fault, state, row);
  let cells = observed.get(k);
  if (!cells) {
    cells = new Map();
    observed.set(k, cells);
  }
  cells.set(via, o);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const OBSERVERS: Record<Via, (stack: FaultStack, spec: CommandSpec) => Promise<Attempt>> = {
  core: viaCore,
  slack: viaSlack,
  'slack button': viaSlackButton,
  'slack choice': viaSlackChoice,
  discord: viaDiscord,
  'discord button': viaDiscordButton,
  'discord choice': viaDiscordChoice,
  telegram: viaTelegram,
  'telegram button': viaTelegramButton,
  'telegram choice': viaTelegramChoice,
};

/**
 * All commands through all three ways in at once. Health goes first, on its own: the circuit is
 * still closed then, so it shows what the upstream's health check says rather than what the
 * breaker remembers from the other commands' failures, which would make that cell a race.
 */
async function observeCommands(stack: FaultStack, fault: string, state: State, truth: () => Truth): Promise<void> {
  const run = (spec: CommandSpec) =>
    Promise.all(
      VIAS.map(async (via) => {
        const attempt = await OBSERVERS[via](stack, spec);
        const o: Observed = classify(spec, attempt, truth());
        record(stack.source, fault, state, spec.id, via, { value: o.cell, ...(o.why ? { why: o.why } : {}) });
      }),
    );
  await run(COMMANDS.find((c) => c.id === 'health')!);
  await Promise.all(COMMANDS.filter((c) => c.id !== 'health').map(run));
}

/** Runs every command once with no fault until all answer with fresh data, so each has something to go stale. */
async function warm(stack: FaultStack): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const startedAt = Date.now();
    const results = await Promise.all(COMMANDS.map((c) => stack.core.run(c.text(stack), slackCaller(c.slackChannel ?? 'CWARMING1'))));
    const unfit = results.filter((r) => r.reply.kind === 'error' || ('footer' in r.reply && r.reply.footer?.stale));
    if (unfit.length === 0) return startedAt;
    if (attempt === 3) throw new Error(`the cache could not be warmed: ${JSON.stringify(unfit.map((r) => r.reply)).slice(0, 500)}`);
    await sleep(BREAKER_COOLDOWN_MS * 2);
  }
}

/** Polls /healthz until it says degraded, naming the source and what is wrong with it. */
async function healthzDuring(stack: FaultStack): Promise<{ value: Value; why?: string }> {
  const deadline = Date.now() + HEALTHZ_BOUND_MS;
  let last = '';
  for (;;) {
    const { status, body } = await stack.healthz();
    last = JSON.stringify(body.upstream);
    const shows = body.upstream.healthy === false || body.upstream.circuits[stack.source] !== 'closed';
    if (status === 200 && body.status === 'degraded' && body.upstream.source === stack.source && shows) return { value: 'degraded' };
    if (Date.now() > deadline) return { value: 'not degraded', why: `status ${status} ${body.status}: ${last}` };
    await sleep(50);
  }
}

/**
 * Clears the fault and waits for /healthz to be fully ok again (health checks passing, circuit
 * closed), which is also what closes the circuit: its trial call is the health refresh. A value
 * just served stale is served again for the stale-retry window, recovered upstream or not, so
 * fresh answers are only due once that has passed too.
 */
async function recover(stack: FaultStack): Promise<{ value: Value; why?: string }> {
  stack.sim.faults.reset();
  const freshFrom = Date.now() + STALE_RETRY_MS;
  const deadline = Date.now() + RECOVERY_BOUND_MS;
  for (;;) {
    const { status, body } = await stack.healthz();
    if (status === 200 && body.status === 'ok' && body.upstream.healthy === true && body.upstream.circuits[stack.source] === 'closed') {
      await sleep(freshFrom - Date.now());
      return { value: 'ok' };
    }
    if (Date.now() > deadline)
      return { value: 'not recovered', why: `after ${RECOVERY_BOUND_MS} ms: ${body.status} ${JSON.stringify(body.upstream)}` };
    await sleep(50);
  }
}

/** The process is up and every adapter answers an ordinary command with current data. */
async function answersAfter(stack: FaultStack, fault: string, state: State): Promise<void> {
  const spec = COMMANDS.find((c) => c.id === 'exchange card')!;
  const truth: Truth = { current: truthOf(stack.sim.store) };
  await Promise.all(
    VIAS.map(async (via) => {
      const o = classify(spec, await OBSERVERS[via](stack, spec), truth);
      record(stack.source, fault, state, ANSWERS_AFTER, via, { value: o.cell, ...(o.why ? { why: o.why } : {}) });
    }),
  );
}

/**
 * After warming, the exchange's PoL moves upstream: a stale answer must still show the value it
 * cached, and the first answer after recovery the new one.
 */
function movePol(sim: Simulator): void {
  const kraken = sim.store.exchange('kraken')!;
  sim.store.setPol('exchange', 'kraken', Math.round((kraken.pol.at(-1)! + 0.0002) * 1e5) / 1e5);
}

async function runFault(stack: FaultStack, fault: Fault): Promise<void> {
  const { sim, source } = stack;
  for (const state of STATES) {
    stack.core.upstream.source.cache.clear();
    let truth: Truth;
    if (state === 'stale') {
      const startedAt = await warm(stack);
      const values = truthOf(sim.store);
      movePol(sim);
      truth = { current: truthOf(sim.store), warm: { values, startedAt } };
    } else {
      truth = { current: truthOf(sim.store) };
    }
    fault.apply(sim);
    await observeCommands(stack, fault.id, state, () => truth);
    record(source, fault.id, state, HEALTHZ_DURING, 'healthz', await healthzDuring(stack));
    record(source, fault.id, state, HEALTHZ_AFTER, 'healthz', await recover(stack));
    await answersAfter(stack, fault.id, state);
  }
}

/** Every cell of one source that differs from the expected matrix, one line each. */
function differences(source: SourceName): string[] {
  const out: string[] = [];
  for (const [k, want] of EXPECTED_CELLS) {
    if (!k.startsWith(`${source} `)) continue;
    const cells = observed.get(k);
    if (!cells) {
      out.push(`${k}: expected ${want}, not observed`);
      continue;
    }
    for (const [via, got] of cells)
      if (got.value !== want) out.push(`${k} via ${via}: expected ${want}, got ${got.value}${got.why ? ` (${got.why})` : ''}`);
  }
  return out;
}

/** The observed matrix of one source as a table; a cell where the three ways disagree lists each. */
function observedTable(source: SourceName): string {
  const rows = [...COMMANDS.map((c) => c.id), HEALTHZ_DURING, HEALTHZ_AFTER, ANSWERS_AFTER];
  const lines = [['command', 'state', ...FAULTS.map((f) => f.id)]];
  for (const row of rows) {
    for (const state of STATES) {
      lines.push([
        row,
        state,
        ...FAULTS.map((f) => {
          const cells = observed.get(key(source, f.id, state, row));
          if (!cells) return '-';
          const values = [...cells.values()].map((c) => c.value);
          return new Set(values).size === 1 ? values[0]! : [...cells].map(([via, c]) => `${via}:${c.value}`).join(',');
        }),
      ]);
    }
  }
  const widths = lines[0]!.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  return lines.map((l) => l.map((c, i) => c.padEnd(widths[i]!)).join(' | ')).join('\n');
}

const stacks = new Map<SourceName, FaultStack>();
const escaped: string[] = [];
const onRejection = (reason: unknown) => escaped.push(`unhandledRejection: ${String((reason as Error)?.stack ?? reason)}`);
const onException = (err: Error) => escaped.push(`uncaughtException: ${String(err?.stack ?? err)}`);

beforeAll(async () => {
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  const started = await Promise.allSettled(SOURCES.map(async (s) => stacks.set(s, await startFaultStack(s))));
  const failed = started.find((r) => r.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
}, 60_000);

afterAll(async () => {
  await Promise.all([...stacks.values()].map((s) => s.close()));
  process.off('unhandledRejection', onRejection);
  process.off('uncaughtException', onException);
  // Shutting down under the faults' leftovers must not let anything escape either.
  if (escaped.length) throw new Error(`escaped while shutting down:\n${escaped.join('\n')}`);
});

describe('fault × command × adapter matrix', () => {
  it.concurrent.for(SOURCES)(
    '%s: every fault through every command, cold and stale, via the core and Slack, Discord and Telegram commands, buttons and choices',
    { timeout: 150_000 },
    async (source, { expect }) => {
      const stack = stacks.get(source)!;
      const started = performance.now();
      for (const fault of FAULTS) await runFault(stack, fault);
      console.log(
        `${source.toUpperCase()} fault matrix (${Math.round((performance.now() - started) / 1000)} s):\n${observedTable(source)}`,
      );
      expect(differences(source)).toEqual([]);
    },
  );

  it('no rejection or exception escaped, and no adapter logged a failed command', ({ expect }) => {
    expect(escaped).toEqual([]);
    for (const stack of stacks.values()) expect(stack.errorLines).toEqual([]);
    // The process stayed up by construction; what proves the adapters stayed usable is the
    // "answers after" row of every fault above.
    expect(observed.size).toBeGreaterThan(0);
  });
});
