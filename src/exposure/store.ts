import { ms, type Db } from '../db/index.js';
import type { ListedPols } from './listed.js';
import { dayOf, KEEP_MS, placement, type EarliestReading, type ListedReading, type ListedReadings } from './readings.js';

type Row = Record<string, unknown>;

const toReading = (r: Row): ListedReading => ({
  at: ms(r.read_at),
  pols: (typeof r.pols === 'string' ? JSON.parse(r.pols) : r.pols) as ListedPols,
});

/**
 * Readings of listed assets in the database (`listed_asset_readings`, schema version 13). A
 * reading is placed under a lock on its exchange, so replicas recording the same exchange at once
 * keep at most two readings of a day between them.
 */
export class ListedReadingStore implements ListedReadings {
  readonly kept = 'database' as const;

  constructor(private readonly db: Db) {}

  async record(exchange: string, at: number, pols: ListedPols): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('polbot:listed:' || $1))`, [exchange]);
      const day = dayOf(at);
      const rows = await tx.query<Row>(
        'SELECT id, read_at, pols FROM listed_asset_readings WHERE exchange = $1 AND read_at >= $2 AND read_at < $3 ORDER BY read_at, id',
        [exchange, new Date(day), new Date(day + 86_400_000)],
      );
      const json = JSON.stringify(pols);
      switch (placement(rows.map(toReading), at, pols)) {
        case 'add':
          await tx.query('INSERT INTO listed_asset_readings (exchange, read_at, pols) VALUES ($1, $2, $3::jsonb)', [
            exchange,
            new Date(at),
            json,
          ]);
          break;
        case 'replace':
          await tx.query('UPDATE listed_asset_readings SET read_at = $2, pols = $3::jsonb WHERE id = $1', [
            rows.at(-1)!.id,
            new Date(at),
            json,
          ]);
          break;
        case 'skip':
          break;
      }
      await tx.query('DELETE FROM listed_asset_readings WHERE exchange = $1 AND read_at < $2', [exchange, new Date(at - KEEP_MS)]);
    });
  }

  async earliest(exchange: string, from: number, before: number): Promise<EarliestReading> {
    const [first] = await this.db.query<Row>('SELECT min(read_at) AS first_at FROM listed_asset_readings WHERE exchange = $1', [exchange]);
    const [row] = await this.db.query<Row>(
      'SELECT read_at, pols FROM listed_asset_readings WHERE exchange = $1 AND read_at >= $2 AND read_at < $3 ORDER BY read_at, id LIMIT 1',
      [exchange, new Date(from), new Date(before)],
    );
    return { reading: row ? toReading(row) : null, firstAt: first?.first_at ? ms(first.first_at) : null };
  }
}
