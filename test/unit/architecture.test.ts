import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

/**
 * Where src/ may spell a platform's name in code, and why: everywhere else the core is handed a
 * platform as an opaque name by its adapter and never branches on it.
 */
const ALLOWED: Record<string, string> = {
  'src/workspace.ts': 'the platform names the stores accept (the database checks the same list)',
  'src/db/migrations.ts': 'released migrations name the tables and values they created; they are never edited',
  'src/log.ts': "Slack's request-signature header is redacted from every log line",
};

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Identifiers and string or template text of a file, comments left out: what its code says. */
function codeWords(path: string): { text: string; line: number }[] {
  const file = ts.createSourceFile(path, readFileSync(join(ROOT, path), 'utf8'), ts.ScriptTarget.Latest, true);
  const out: { text: string; line: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) || ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) {
      out.push({ text: node.getText(file), line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

const PLATFORM = /slack|discord|telegram/i;
/** The upstream's own social signals count Telegram members: data about a project, not a platform polbot serves. */
const UPSTREAM_DATA = /^'?(telegramMembers|telegramBotMembersPct|Telegram members|Bot Telegram members)'?$/;

describe('the parts stay apart', () => {
  it('nothing under src/ names a chat platform in its code, outside the places listed with their reason', () => {
    const named = filesUnder('src')
      .map((f) => relative(ROOT, join(ROOT, f)))
      .filter((f) => !(f in ALLOWED))
      .flatMap((f) =>
        codeWords(f).flatMap((w) => (PLATFORM.test(w.text) && !UPSTREAM_DATA.test(w.text) ? [`${f}:${w.line} ${w.text}`] : [])),
      );
    expect(named).toEqual([]);
  });

  it('would see a platform named in code, and not one named in a comment', () => {
    const probe = 'test/unit/fixtures/names-a-platform.ts';
    expect(codeWords(probe).filter((w) => PLATFORM.test(w.text))).toEqual([
      { text: 'slackWorkspace', line: 3 },
      { text: "'discord'", line: 4 },
    ]);
  });
});
