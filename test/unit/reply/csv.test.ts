import { describe, expect, it } from 'vitest';
import { toCsv } from '../../../src/reply/csv.js';

describe('CSV export', () => {
  it('quotes what needs quoting and never lets a cell start a spreadsheet formula', () => {
    const csv = toCsv(
      ['name', 'pol'],
      [
        ['Plain', 0.5],
        ['Comma, Inc', 0.25],
        ['Say "hi"', null],
        ['=HYPERLINK("http://x")', 0.1],
        ['-2+3', 0.2],
        ['@SUM(A1)', 0.3],
      ],
    ).toString('utf8');
    expect(csv.split('\n')).toEqual([
      'name,pol',
      'Plain,0.5',
      '"Comma, Inc",0.25',
      '"Say ""hi""",',
      `"'=HYPERLINK(""http://x"")",0.1`,
      "'-2+3,0.2",
      "'@SUM(A1),0.3",
      '',
    ]);
  });
});
