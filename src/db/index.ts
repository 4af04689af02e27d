import { openDb, type Db, type DbOptions } from './connection.js';
import { migrate } from './migrations.js';

export { ms, msOrNull, openDb, type Db, type DbOptions, type Queryable } from './connection.js';
export { migrate, type Migration } from './migrations.js';
export { LeaseQueue, type LeaseColumns } from './lease-queue.js';

/**
 * polbot's one database, opened and brought to the current schema: digests, alerts, installations,
 * events seen and recent lookups all live in it. Migrating is safe when replicas start together.
 */
export async function openDatabase(options: DbOptions): Promise<Db> {
  const db = await openDb(options);
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}
