import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';

describe('test database', () => {
  it('is a real PostgreSQL reachable through DATABASE_URL', async () => {
    const url = inject('databaseUrl');
    expect(process.env.DATABASE_URL).toBe(url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query<{ v: string }>('select version() as v');
    await client.end();
    expect(rows[0]!.v).toMatch(/^PostgreSQL \d+/);
  });
});
