import type { IncomingMessage } from 'node:http';

/**
 * The suite-wide secret check. Every secret a test hands out (the fakes' tokens, the simulator's
 * key, signing secrets) is registered here, and every log line and every payload the fake
 * platforms receive is gathered; test/setup/secret-watch.ts fails a test file whose gathered text
 * contains any registered secret. Each adapter's own tests check the leaks they think of; this
 * catches the ones nobody thought of.
 */

/** Fixed secrets of the suite that no fake hands out (see test/integration/security/secret-check.test.ts for the drift check). */
export const FIXED_SECRETS: readonly { value: string; label: string }[] = [
  // DEMO_API_KEY in src/sim/server.ts: every demo-mode simulator, in-process or in a child.
  { value: 'svc_demo_simulated_upstream', label: 'upstream API key (simulator default)' },
  // SIGNING_SECRET in test/helpers/slack/harness.ts; the Slack adapter tests configure it in HTTP mode.
  { value: 'slack-adapter-test-signing-secret-7f3a', label: 'Slack signing secret (adapter tests)' },
  // the digest delivery tests configure it but never signs with it.
  { value: 'digest-adapter-test-secret', label: 'Slack signing secret (digest adapter tests)' },
];

/** Shorter values (`t`, `xoxb-1`) are placeholders in unit tests and would match ordinary text. */
const MIN_SECRET_LENGTH = 8;
const EXCERPT_CHARS = 80;

export type SightingKind = 'payload' | 'log' | 'output';

export interface Sighting {
  kind: SightingKind;
  /** Where the text was seen, e.g. `fake Slack POST /api/chat.postMessage`; masked when reported. */
  where: string;
  text: string;
}

export interface Leak {
  /** What the secret is, never the secret itself. */
  label: string;
  encoding: string;
  kind: SightingKind;
  /** `where` and `excerpt` with every registered secret replaced by its label. */
  where: string;
  excerpt: string;
}

interface Pattern {
  text: string;
  encoding: string;
}

interface Secret {
  value: string;
  label: string;
  patterns: Pattern[];
}

/**
 * The forms a secret takes when a client encodes it: as is, percent-encoded, and inside base64
 * (Basic auth, data URLs, base64-wrapped JSON) at each of the three byte alignments, so it is
 * found in the middle of a longer encoded string too.
 */
export function encodingsOf(value: string): Pattern[] {
  const out: Pattern[] = [{ text: value, encoding: 'plain' }];
  const url = encodeURIComponent(value);
  if (url !== value) out.push({ text: url, encoding: 'URL-encoded' });
  const bytes = Buffer.from(value, 'utf8');
  for (let align = 0; align < 3; align += 1) {
    const encoded = Buffer.concat([Buffer.alloc(align), bytes])
      .toString('base64')
      .replace(/=+$/, '');
    // Characters that mix in bits of the neighbouring bytes differ from one message to the next.
    const head = [0, 2, 3][align]!;
    const tail = (align + bytes.length) % 3 === 0 ? 0 : 1;
    const core = encoded.slice(head, encoded.length - tail);
    if (core.length < MIN_SECRET_LENGTH) continue;
    out.push({ text: core, encoding: 'base64' });
    const urlSafe = core.replace(/\+/g, '-').replace(/\//g, '_');
    if (urlSafe !== core) out.push({ text: urlSafe, encoding: 'base64url' });
  }
  return out;
}

export class SecretWatch {
  readonly #secrets = new Map<string, Secret>();
  readonly #sightings: Sighting[] = [];

  /** Registers a value that must never show up in a log line or a platform payload. */
  secret(value: string | undefined | null, label: string): void {
    if (!value || value.length < MIN_SECRET_LENGTH || this.#secrets.has(value)) return;
    this.#secrets.set(value, { value, label, patterns: encodingsOf(value) });
  }

  secrets(): { value: string; label: string }[] {
    return [...this.#secrets.values()].map(({ value, label }) => ({ value, label }));
  }

  payload(where: string, text: string): void {
    this.#sightings.push({ kind: 'payload', where, text });
  }

  log(where: string, text: string): void {
    this.#sightings.push({ kind: 'log', where, text });
  }

  /**
   * Collects output that arrives in chunks as one text, so a secret split across two chunks is
   * still found.
   */
  outputSink(where: string): (chunk: Buffer | string) => void {
    const sighting: Sighting = { kind: 'output', where, text: '' };
    this.#sightings.push(sighting);
    return (chunk) => {
      sighting.text += chunk.toString();
    };
  }

  /** A child process's stdout or stderr; listening takes nothing from the test's own listeners. */
  output(where: string, stream: NodeJS.ReadableStream | null | undefined): void {
    stream?.on('data', this.outputSink(where));
  }

  /** Output a test already holds as text (execFile, spawnSync). */
  outputText(where: string, text: string | Buffer | null | undefined): void {
    if (text) this.#sightings.push({ kind: 'output', where, text: text.toString() });
  }

  sightings(kind?: SightingKind): readonly Sighting[] {
    return kind ? this.#sightings.filter((s) => s.kind === kind) : this.#sightings;
  }

  leaks(): Leak[] {
    return findLeaks([...this.#secrets.values()], this.#sightings);
  }

  /** Throws one error listing every leak, with the secrets masked. */
  assertClean(): void {
    const leaks = this.leaks();
    if (leaks.length > 0) throw new Error(describeLeaks(leaks));
  }

  /** Forgets what was seen; the secrets stay registered. */
  clearSightings(): void {
    this.#sightings.length = 0;
  }
}

export function findLeaks(
  secrets: readonly { value: string; label: string; patterns?: Pattern[] }[],
  sightings: readonly Sighting[],
): Leak[] {
  const known: Secret[] = secrets
    .filter((s) => s.value.length >= MIN_SECRET_LENGTH)
    .map((s) => ({ ...s, patterns: s.patterns ?? encodingsOf(s.value) }));
  // Longest first, so masking a secret that contains another (`secret` and `secret-not`) names the longer one.
  const masks = known
    .flatMap((s) => s.patterns.map((p) => ({ text: p.text, label: s.label })))
    .sort((a, b) => b.text.length - a.text.length);
  const leaks: Leak[] = [];
  for (const sighting of sightings) {
    for (const secret of known) {
      for (const pattern of secret.patterns) {
        // The request line is searched on its own: paths and query strings leak as well as bodies.
        const inWhere = sighting.where.indexOf(pattern.text);
        const haystack = inWhere >= 0 ? sighting.where : sighting.text;
        const at = inWhere >= 0 ? inWhere : sighting.text.indexOf(pattern.text);
        if (at < 0) continue;
        leaks.push({
          label: secret.label,
          encoding: pattern.encoding,
          kind: sighting.kind,
          where: printable(mask(sighting.where, masks)),
          excerpt: excerpt(haystack, at, pattern.text.length, masks),
        });
        break;
      }
    }
  }
  return leaks;
}

export function describeLeaks(leaks: readonly Leak[]): string {
  const lines = leaks.map((l) => `- ${l.label} (${l.encoding}) in ${l.kind} at ${l.where}: …${l.excerpt}…`);
  return `secret(s) leaked into logs or platform payloads (${leaks.length}):\n${lines.join('\n')}`;
}

function mask(text: string, masks: readonly { text: string; label: string }[]): string {
  let out = text;
  for (const m of masks) if (out.includes(m.text)) out = out.split(m.text).join(`[${m.label}]`);
  return out;
}

function excerpt(haystack: string, at: number, length: number, masks: readonly { text: string; label: string }[]): string {
  // The window is widened by the longest pattern first, so a secret straddling its edge is
  // masked whole before the window is cut down.
  const widest = masks[0]?.text.length ?? 0;
  const from = Math.max(0, at - EXCERPT_CHARS - widest);
  const to = Math.min(haystack.length, at + length + EXCERPT_CHARS + widest);
  const before = mask(haystack.slice(from, at), masks);
  const after = mask(haystack.slice(at + length, to), masks);
  const marker = mask(haystack.slice(at, at + length), masks);
  return printable(`${before.slice(-EXCERPT_CHARS)}${marker}${after.slice(0, EXCERPT_CHARS)}`);
}

/** Payloads carry PNG bytes; control characters would garble the report. */
function printable(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\ufffd]/g, '.').replace(/\n/g, '⏎');
}

/** Headers never shown to the check: the Authorization header carries the token to the platform by design, and a request signature is derived from the secret, not the secret. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'x-slack-signature']);

/** A request as the check sees it: request line, then the headers bar the credential ones. */
export function requestHead(req: IncomingMessage): { line: string; headers: string } {
  const lines: string[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    if (!CREDENTIAL_HEADERS.has(name.toLowerCase())) lines.push(`${name}: ${req.rawHeaders[i + 1]}`);
  }
  return { line: `${req.method ?? 'GET'} ${req.url ?? '/'}`, headers: lines.join('\n') };
}

const KEY = Symbol.for('polbot.test.secretWatch');

/** One watch per worker process, whichever copy of this module a fake or the setup file loaded. */
const shared = globalThis as Record<symbol, unknown>;
shared[KEY] ??= new SecretWatch();
export const secretWatch: SecretWatch = shared[KEY] as SecretWatch;
