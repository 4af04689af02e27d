import type { SourceName } from './domain.js';
import { UpstreamError } from './errors.js';
import type { DataSource, Fetched } from './source.js';

/** What went wrong between polbot and a source, told apart so that an operator knows what to fix. */
export type ProblemKind =
  | 'dns'
  | 'refused'
  | 'tls'
  | 'timeout'
  | 'key'
  | 'base_path'
  | 'server_error'
  | 'rate_limited'
  | 'shape'
  | 'tool_drift'
  | 'checks_failing'
  | 'unreachable';

export interface Problem {
  kind: ProblemKind;
  /** One line for a person: what is wrong and, where it is ours to fix, which setting to check. */
  summary: string;
}

export interface SourceCheck {
  source: SourceName;
  label: string;
  ok: boolean;
  problems: Problem[];
}

export const SOURCE_LABEL: Record<SourceName, string> = { rest: 'REST gateway', mcp: 'Tool server' };
const SETTING: Record<SourceName, string> = { rest: 'POL_API_BASE_URL', mcp: 'POL_MCP_URL (or POL_MCP_COMMAND)' };

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|EPROTO$|HOSTNAME_MISMATCH)/;

/** The first system error code along an error's causes (`ECONNREFUSED`, `CERT_HAS_EXPIRED`, ...). */
function codeOf(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; e && typeof e === 'object' && depth < 6; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_SOCKET') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** One failure of a source, as the kind of problem it shows. */
export function diagnose(err: unknown, source: SourceName): Problem {
  const setting = SETTING[source];
  if (!(err instanceof UpstreamError)) return { kind: 'unreachable', summary: 'failed in an unexpected way (see the log)' };
  const code = codeOf(err);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return { kind: 'dns', summary: `its host name does not resolve (${code}): check ${setting}` };
  if (code === 'ECONNREFUSED') return { kind: 'refused', summary: `the connection was refused: nothing listens there; check ${setting}` };
  if (code && TLS_CODE.test(code))
    return { kind: 'tls', summary: `the TLS handshake failed (${code}): check the certificate, or http versus https in ${setting}` };
  if (err.kind === 'timeout' || code === 'UND_ERR_CONNECT_TIMEOUT')
    return { kind: 'timeout', summary: 'it did not answer in time (POL_TIMEOUT_MS)' };
  if (err.kind === 'unauthorized')
    return { kind: 'key', summary: `it refused the key (HTTP ${err.status ?? '401/403'}): check POL_API_KEY` };
  if (err.status === 404) return { kind: 'base_path', summary: `${err.route} answered 404: the base path looks wrong; check ${setting}` };
  if (err.kind === 'rate_limited') return { kind: 'rate_limited', summary: 'it is rate-limiting polbot (HTTP 429)' };
  if (err.status !== undefined && err.status >= 500)
    return { kind: 'server_error', summary: `it answered HTTP ${err.status} on ${err.route}` };
  if (err.kind === 'bad_response')
    return { kind: 'shape', summary: `unexpected answer from ${err.route}${err.detail ? `: ${firstIssue(err.detail)}` : ''}` };
  return { kind: 'unreachable', summary: `not reachable (${code ?? err.kind})` };
}

/** `categories[0].score: missing; pol: ...` -> the first field and what was wrong with it. */
function firstIssue(detail: string): string {
  const first = detail.split('; ')[0] ?? detail;
  return first.length > 160 ? `${first.slice(0, 159)}…` : first;
}

/** A health answer that is itself an answer, not a failure: the service runs and says its checks fail. */
const failingChecks = (checks: { name: string; ok: boolean }[]): Problem[] =>
  checks.filter((c) => !c.ok).map((c) => ({ kind: 'checks_failing' as const, summary: `${c.name} reports failing checks` }));

/** Values an answer held that polbot cannot read: the answer has drifted from the documents. */
function unreadableIn(answer: Fetched<unknown>): Problem[] {
  const found = answer.meta.unreadable;
  if (!found) return [];
  const what = found.first ?? `${found.rows} list row${found.rows === 1 ? '' : 's'} could not be read`;
  return [{ kind: 'shape', summary: `unexpected answer from ${found.route}: ${what}` }];
}

interface Checkable extends DataSource {
  toolDrift?: () => Promise<string[]>;
}

/**
 * Every configured source checked directly (past the cache and breakers): its health route, one
 * data route read against the schemas, and for the tool server, its tool list against the tools
 * polbot calls. Problems are collected, not thrown.
 */
export async function checkSources(sources: readonly Checkable[]): Promise<SourceCheck[]> {
  return Promise.all(
    sources.map(async (source) => {
      const problems: Problem[] = [];
      const probes: Promise<void>[] = [
        source.health().then(
          (h) => void problems.push(...failingChecks(h.data.checks)),
          (err: unknown) => void problems.push(diagnose(err, source.name)),
        ),
      ];
      // One data route read against the schemas: a gateway that answers in another shape is not healthy.
      const data: Promise<Fetched<unknown>> = source.name === 'rest' ? source.indexPol('project') : source.list('project');
      probes.push(
        data.then(
          (answer) => void problems.push(...unreadableIn(answer)),
          (err: unknown) => void problems.push(diagnose(err, source.name)),
        ),
      );
      if (source.toolDrift) {
        probes.push(
          source.toolDrift().then(
            (drift) => void problems.push(...drift.map((d) => ({ kind: 'tool_drift' as const, summary: `tool list changed: ${d}` }))),
            (err: unknown) => void problems.push(diagnose(err, source.name)),
          ),
        );
      }
      await Promise.all(probes);
      return { source: source.name, label: SOURCE_LABEL[source.name], ok: problems.length === 0, problems: dedupe(problems) };
    }),
  );
}

/** A connection problem is one problem however many probes met it; answers differ by route. */
const PER_ROUTE: ReadonlySet<ProblemKind> = new Set(['shape', 'tool_drift', 'checks_failing', 'server_error', 'base_path']);

function dedupe(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = PER_ROUTE.has(p.kind) ? p.summary : p.kind;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
