import type { ListedPols } from './listed.js';
import { dayOf, KEEP_MS, placement, type EarliestReading, type ListedReading, type ListedReadings } from './readings.js';

/** Readings kept in this process only, by the same rules as the database's: where polbot opens no database. */
export class MemoryListedReadings implements ListedReadings {
  readonly kept = 'process' as const;
  private readonly byExchange = new Map<string, ListedReading[]>();

  async record(exchange: string, at: number, pols: ListedPols): Promise<void> {
    const kept = (this.byExchange.get(exchange) ?? []).filter((r) => r.at >= at - KEEP_MS);
    const day = kept.filter((r) => dayOf(r.at) === dayOf(at));
    const how = placement(day, at, pols);
    if (how === 'replace') kept[kept.indexOf(day.at(-1)!)] = { at, pols };
    this.byExchange.set(exchange, how === 'add' ? [...kept, { at, pols }].sort((a, b) => a.at - b.at) : kept);
  }

  async earliest(exchange: string, from: number, before: number): Promise<EarliestReading> {
    const kept = this.byExchange.get(exchange) ?? [];
    return { reading: kept.find((r) => r.at >= from && r.at < before) ?? null, firstAt: kept[0]?.at ?? null };
  }
}
