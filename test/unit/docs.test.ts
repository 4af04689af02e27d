import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The documentation holds together: README.md stays the short front door, it links every page of
 * docs/, every page opens with one line saying what it covers, and every relative link in them
 * reaches a file that exists and, with a #anchor, a heading of that file (GitHub's slugs).
 * Reads files only: no server, no child process.
 */

/** The repository root: the nearest folder above this file that holds package.json. */
function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('package.json not found above the test');
    dir = up;
  }
  return dir;
}

const ROOT = repoRoot();
const README = join(ROOT, 'README.md');
const DOCS = join(ROOT, 'docs');
const PAGES = readdirSync(DOCS)
  .filter((f) => f.endsWith('.md'))
  .sort()
  .map((f) => join(DOCS, f));
const FILES = [README, ...PAGES];

/** The lines that are prose, not code: fenced blocks (``` or ~~~, indented in lists too) become empty lines. */
function proseLines(text: string): string[] {
  let fence: string | null = null;
  return text.split('\n').map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker) {
      fence = marker;
      return '';
    }
    if (fence !== null) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
      return '';
    }
    return line;
  });
}

/** A line without its code spans, which hold no links. */
function withoutCode(line: string): string {
  return line.replace(/(`+)(?:(?!\1)[^`]|`(?!\1))*?\1/g, ' ');
}

/** GitHub's anchor for a heading: lowercase, punctuation but hyphens and underscores dropped, each space a hyphen. */
function slugOf(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link or an image reads as its text
    .replace(/<[^>]+>/g, '') // inline HTML
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The anchors of a Markdown file's headings, numbered as GitHub numbers repeats (`x`, `x-1`, `x-2`). */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(readFileSync(file, 'utf8'))) {
    const m = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (!m) continue;
    const base = slugOf(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

interface Link {
  line: number;
  target: string;
}

/** Inline links and images `[text](target "title")`, and reference definitions `[label]: target`. */
function linksOf(file: string): Link[] {
  const links: Link[] = [];
  proseLines(readFileSync(file, 'utf8')).forEach((raw, i) => {
    const line = withoutCode(raw);
    for (const m of line.matchAll(/\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g)) {
      links.push({ line: i + 1, target: m[1]!.replace(/^<|>$/g, '') });
    }
    const ref = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/.exec(line);
    if (ref) links.push({ line: i + 1, target: ref[1]!.replace(/^<|>$/g, '') });
  });
  return links;
}

const isExternal = (target: string) => /^[a-z][a-z\d+.-]*:/i.test(target) || target.startsWith('//');

/** What is wrong with one relative link, or null. */
function problemOf(from: string, target: string): string | null {
  const hash = target.indexOf('#');
  const pathPart = decodeURI(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
  const file = pathPart === '' ? from : pathPart.startsWith('/') ? join(ROOT, pathPart) : resolve(dirname(from), pathPart);
  if (!existsSync(file)) return `no such file: ${relative(ROOT, file)}`;
  if (anchor === null || anchor === '') return null;
  if (!file.endsWith('.md') || statSync(file).isDirectory()) return `an anchor into a file that is not Markdown: ${relative(ROOT, file)}`;
  if (!anchorsOf(file).has(anchor)) return `no heading with the anchor #${anchor} in ${relative(ROOT, file)}`;
  return null;
}

describe('the documentation', () => {
  it('finds the README and the pages of docs/', () => {
    expect(existsSync(README)).toBe(true);
    expect(PAGES.length).toBeGreaterThan(0);
  });

  it('keeps the README under 300 lines', () => {
    const lines = readFileSync(README, 'utf8').replace(/\n$/, '').split('\n').length;
    expect(lines).toBeLessThan(300);
  });

  it.each(FILES.map((f) => [relative(ROOT, f), f]))('%s: every relative link reaches its file and heading', (_name, file) => {
    const problems = linksOf(file)
      .filter((l) => !isExternal(l.target))
      .map((l) => {
        const problem = problemOf(file, l.target);
        return problem && `line ${l.line}: (${l.target}) ${problem}`;
      })
      .filter((p): p is string => p !== null);
    expect(problems).toEqual([]);
  });

  it('the README links every page of docs/', () => {
    const linked = new Set(
      linksOf(README)
        .filter((l) => !isExternal(l.target))
        .map((l) => resolve(ROOT, decodeURI(l.target.split('#')[0]!))),
    );
    expect(PAGES.filter((p) => !linked.has(p)).map((p) => relative(ROOT, p))).toEqual([]);
  });

  it.each(PAGES.map((f) => [relative(ROOT, f), f]))('%s opens with its title and one line saying what it covers', (_name, file) => {
    const [title, gap, summary, after] = readFileSync(file, 'utf8').split('\n');
    expect(title).toMatch(/^# \S/);
    expect(gap).toBe('');
    expect(summary).toMatch(/^[^#\s>|`-]/);
    expect(after).toBe('');
  });
});

describe('GitHub anchors', () => {
  it.each([
    ['Many workspaces: install through OAuth', 'many-workspaces-install-through-oauth'],
    ['6. Many servers: sharding', '6-many-servers-sharding'],
    ['Over HTTP (no gateway connection)', 'over-http-no-gateway-connection'],
    ['Slack: each event and each request runs once', 'slack-each-event-and-each-request-runs-once'],
    ['`POL_API_KEY` and [the key](x.md)', 'pol_api_key-and-the-key'],
    ['What we assumed — where docs are silent', 'what-we-assumed--where-docs-are-silent'],
  ])('%s -> #%s', (heading, slug) => {
    expect(slugOf(heading)).toBe(slug);
  });
});
