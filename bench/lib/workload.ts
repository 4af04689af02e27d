import type { Core } from '../../commands/core/core.js';
import type { EntityRef } from '../../src/api/domain.js';

/** Every entity the upstream lists, as people would name them. */
export async function universe(core: Core): Promise<{ projects: EntityRef[]; exchanges: EntityRef[] }> {
  const [projects, exchanges] = await Promise.all([core.upstream.source.list('project'), core.upstream.source.list('exchange')]);
  return { projects: projects.data, exchanges: exchanges.data };
}

const RANGES = ['7d', '30d', '90d', '180d', '365d', 'all'];
const PROJECT_CHARTS = ['pol', 'categories', 'inflation', 'voice'];
const EXCHANGE_CHARTS = ['pol', 'categories', 'reserves'];

/**
 * A deterministic stream of the commands people send, in rough proportion: mostly cards, then
 * charts, compares, flags, lists and searches. Names are typed the way people type them (names,
 * lower case, slugs), so some resolve and some ask the person to choose, as in real use.
 */
export function mixedCommands(count: number, u: { projects: EntityRef[]; exchanges: EntityRef[] }, seed = 1): string[] {
  let state = seed >>> 0;
  const rand = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  const anyEntity = () => (rand() < 0.7 ? pick(u.projects) : pick(u.exchanges));
  const typed = (e: EntityRef) => {
    const r = rand();
    return r < 0.6 ? e.name : r < 0.85 ? e.name.toLowerCase() : e.slug;
  };
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const r = rand();
    if (r < 0.45) out.push(typed(anyEntity()));
    else if (r < 0.6) {
      const e = anyEntity();
      const kinds = e.kind === 'project' ? PROJECT_CHARTS : EXCHANGE_CHARTS;
      // Half typed, half from a card's buttons (which name the entity explicitly).
      out.push(`chart ${rand() < 0.5 ? typed(e) : `${e.kind}:${e.slug}`} ${pick(RANGES)} ${pick(kinds)}`);
    } else if (r < 0.7) {
      const n = 2 + Math.floor(rand() * 3);
      out.push(`compare ${Array.from({ length: n }, () => typed(anyEntity())).join(', ')}`);
    } else if (r < 0.78) out.push(`flags ${typed(pick(u.projects))}`);
    else if (r < 0.85) out.push(rand() < 0.5 ? 'top projects' : 'top exchanges');
    else if (r < 0.93) out.push(`search ${typed(anyEntity()).slice(0, 3 + Math.floor(rand() * 4))}`);
    else out.push(pick(['trending', 'index', 'help', 'health']));
  }
  return out;
}
