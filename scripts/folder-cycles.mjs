// Refuses a cycle between the folders of src/, which dependency-cruiser's `circular` rule cannot
// see: src/a/x.ts -> src/b/y.ts and src/b/z.ts -> src/a/w.ts is no cycle of files, yet the two
// folders can no longer be understood apart. A file directly in src/ counts as a folder of its own.
import { cruise } from 'dependency-cruiser';

const result = await cruise(['src'], {
  doNotFollow: { path: 'node_modules' },
  tsPreCompilationDeps: true,
  tsConfig: { fileName: 'tsconfig.json' },
  enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
});

const folderOf = (path) => {
  const m = /^src\/([^/]+)(\/)?/.exec(path);
  if (!m) return null;
  return m[2] ? `src/${m[1]}` : `src/${m[1].replace(/\.[cm]?[jt]s$/, '')}`;
};

/** folder -> folder -> one file-level import that makes the edge, for the message. */
const edges = new Map();
for (const module of result.output.modules) {
  const from = folderOf(module.source);
  if (!from) continue;
  for (const dep of module.dependencies) {
    const to = folderOf(dep.resolved);
    if (!to || to === from) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    if (!edges.get(from).has(to)) edges.get(from).set(to, `${module.source} -> ${dep.resolved}`);
  }
}

// Tarjan's strongly connected components: every component of more than one folder is a cycle.
let index = 0;
const stack = [];
const state = new Map();
const cycles = [];
function visit(v) {
  state.set(v, { index, low: index, onStack: true });
  index++;
  stack.push(v);
  for (const w of edges.get(v)?.keys() ?? []) {
    if (!state.has(w)) {
      visit(w);
      state.get(v).low = Math.min(state.get(v).low, state.get(w).low);
    } else if (state.get(w).onStack) {
      state.get(v).low = Math.min(state.get(v).low, state.get(w).index);
    }
  }
  if (state.get(v).low === state.get(v).index) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      state.get(w).onStack = false;
      component.push(w);
    } while (w !== v);
    if (component.length > 1) cycles.push(component.sort());
  }
}
for (const v of edges.keys()) if (!state.has(v)) visit(v);

if (cycles.length) {
  for (const cycle of cycles) {
    console.error(`folders of src/ that import each other: ${cycle.join(', ')}`);
    for (const a of cycle) for (const b of cycle) if (edges.get(a)?.has(b)) console.error(`  ${edges.get(a).get(b)}`);
  }
  process.exit(1);
}
console.log(
  `no cycle between the ${new Set([...edges.keys(), ...[...edges.values()].flatMap((m) => [...m.keys()])]).size} folders of src/`,
);
