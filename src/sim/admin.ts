import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import type { SimStore } from './data/store.js';
import { EXCHANGE_CATEGORIES, PROJECT_CATEGORIES, RATINGS, ratingForPol } from './data/scales.js';
import { HttpError } from './rest/errors.js';

/**
 * `POST /_sim/move`: moves an entity now, so that alerts and demos have something to notice. Only
 * the simulator has it (the upstream it stands for is read-only); it takes the same key as every
 * other route. Changes the latest day only, as a new reading would:
 *
 *   { "kind": "exchange", "slug": "kraken", "pol": 0.12 }
 *   { "kind": "project", "slug": "aave", "rating": "BB", "categories": { "security": 41.5 }, "redFlag": "Team wallet moved" }
 */

export const MOVE_PATH = '/_sim/move';
const MAX_BODY = 16 * 1024;

/** The middle of each rating's PoL band, for moving an entity to a rating. */
const RATING_MIDPOINT: Record<string, number> = {
  AAA: 0.0025,
  AA: 0.0075,
  A: 0.015,
  BBB: 0.03,
  BB: 0.06,
  B: 0.115,
  CCC: 0.2,
  CC: 0.325,
  C: 0.5,
  D: 0.8,
};

const moveBody = z
  .object({
    kind: z.enum(['project', 'exchange']),
    slug: z.string().min(1).max(100),
    pol: z.number().gt(0).lt(1).optional(),
    rating: z.enum(RATINGS).optional(),
    categories: z.record(z.string(), z.number().min(0).max(100)).optional(),
    redFlag: z.string().min(1).max(300).optional(),
  })
  .strict()
  .refine((b) => !(b.pol !== undefined && b.rating !== undefined), { message: 'give pol or rating, not both' });

export type Move = z.infer<typeof moveBody>;

export async function readMove(req: IncomingMessage): Promise<Move> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new HttpError(413, 'payload_too_large', 'Body over 16 KB');
    chunks.push(chunk);
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'invalid_input', 'Body is not JSON');
  }
  const parsed = moveBody.safeParse(json);
  if (!parsed.success)
    throw new HttpError(400, 'invalid_input', parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
  return parsed.data;
}

/** Applies a move and returns the entity's latest values as the REST routes will now give them. */
export function applyMove(store: SimStore, move: Move) {
  const entity = store.entity(move.kind, move.slug);
  if (!entity) throw new HttpError(404, 'not_found', `No ${move.kind} ${move.slug}`);
  const known: readonly string[] = move.kind === 'project' ? PROJECT_CATEGORIES : EXCHANGE_CATEGORIES;
  for (const category of Object.keys(move.categories ?? {})) {
    if (!known.includes(category))
      throw new HttpError(
        400,
        'invalid_input',
        `${move.kind === 'exchange' ? 'An exchange' : 'A project'} has no category ${category}: ${known.join(', ')}`,
      );
  }
  if (move.redFlag !== undefined && move.kind !== 'project')
    throw new HttpError(400, 'invalid_input', 'Red flags are published for projects only');
  const pol = move.pol ?? (move.rating ? RATING_MIDPOINT[move.rating] : undefined);
  if (pol !== undefined) store.setPol(move.kind, move.slug, pol);
  for (const [category, score] of Object.entries(move.categories ?? {})) store.setCategoryScore(move.kind, move.slug, category, score);
  if (move.redFlag !== undefined) store.addRedFlag(move.slug, 'mm', move.redFlag);
  const latest = entity.pol[store.lastIndex]!;
  const categories = Object.fromEntries(
    Object.entries(entity.categories as Record<string, { scores: number[] }>).map(([k, v]) => [k, v.scores[store.lastIndex]!]),
  );
  return { kind: move.kind, slug: move.slug, pol: latest, rating: ratingForPol(latest), categories, simulated: true };
}

/**
 * Of the tokens an exchange lists, the rated project behind the one with the highest PoL now:
 * moving that project moves a listed asset (for `alert test` on listed assets in demo mode).
 * Null when the exchange lists no token of a rated project.
 */
export function listedProject(store: SimStore, exchange: string): { slug: string; asset: string; pol: number } | null {
  const listed = store.exchange(exchange)?.listed ?? [];
  const tokens = store.data.tokens.filter((t) => t.projectSlug !== null && listed.includes(t.id));
  const top = tokens.reduce<(typeof tokens)[number] | undefined>(
    (a, t) => (a && store.tokenPol(a) >= store.tokenPol(t) ? a : t),
    undefined,
  );
  return top ? { slug: top.projectSlug!, asset: `${top.name} (${top.ticker})`, pol: store.tokenPol(top) } : null;
}
