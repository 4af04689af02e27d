/**
 * Summarises a V8 .cpuprofile (from `npm run bench -- --cpu-prof`): self time by function and by
 * package or source file, so the cause of a missed target shows without a flame-graph viewer.
 *
 *   node --import tsx bench/profile.ts bench/profiles/CPU....cpuprofile [--top 25] [--filter text]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '25' }, filter: { type: 'string' } },
});
const top = Number(values.top);

for (const file of positionals) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
  const totalMs = (profile.endTime - profile.startTime) / 1000;

  const where = (url: string) => {
    if (!url) return '(native/VM)';
    const m = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
    if (m) return m[1]!;
    const local = url.match(/\/work\/[^/]+\/(.*)$/);
    return local ? local[1]! : url.replace(/^node:/, 'node:');
  };
  const fnKey = (n: Node) => `${n.callFrame.functionName || '(anonymous)'} ${where(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

  const byFn = new Map<string, number>();
  const byPlace = new Map<string, number>();
  // Inclusive time: every sample counts once for each distinct function on its stack.
  const inclusive = new Map<string, number>();
  for (const [id, ms] of self) {
    const n = byId.get(id)!;
    byFn.set(fnKey(n), (byFn.get(fnKey(n)) ?? 0) + ms);
    const place = where(n.callFrame.url);
    byPlace.set(place, (byPlace.get(place) ?? 0) + ms);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const k = fnKey(byId.get(cur)!);
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + ms);
    }
  }
  const show = (title: string, map: Map<string, number>) => {
    console.log(`\n${title}`);
    const rows = [...map]
      .filter(([k]) => !values.filter || k.includes(values.filter))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top);
    for (const [k, ms] of rows) console.log(`${ms.toFixed(0).padStart(8)} ms ${((ms / totalMs) * 100).toFixed(1).padStart(5)} %  ${k}`);
  };
  console.log(`${file}: ${totalMs.toFixed(0)} ms profiled`);
  show('self time by package / file', byPlace);
  show('self time by function', byFn);
  show('inclusive time by function', inclusive);
}
