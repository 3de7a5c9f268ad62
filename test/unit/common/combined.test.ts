import { describe, expect, it } from 'vitest';
import { combined } from '../../../src/common/sql.ts';

describe('combined', () => {
  it('makes the statements before the last its WITH clauses and numbers their parameters on', () => {
    const one = combined([
      { text: 'insert into "a" ("x", "y") values ($1, $2)', parameters: ['x', 'y'] },
      { text: 'update "b" set "z" = $2 where "id" = $1', parameters: ['b1', 'z'] },
      { text: 'insert into "c" ("p") values ($1), ($2)', parameters: [1, 2] },
    ]);
    expect(one.text).toBe('with "w0" as (insert into "a" ("x", "y") values ($1, $2)), "w1" as (update "b" set "z" = $4 where "id" = $3) insert into "c" ("p") values ($5), ($6)');
    expect(one.parameters).toEqual(['x', 'y', 'b1', 'z', 1, 2]);
  });

  it('leaves a single statement as it is, and numbers parameters past 9 whole', () => {
    const alone = { text: 'insert into "a" ("x") values ($1)', parameters: ['x'] };
    expect(combined([alone])).toEqual(alone);
    const ten = Array.from({ length: 10 }, (_, i) => `$${i + 1}`).join(', ');
    const two = combined([alone, { text: `insert into "t" values (${ten})`, parameters: Array.from({ length: 10 }, (_, i) => i) }]);
    expect(two.text).toBe('with "w0" as (insert into "a" ("x") values ($1)) insert into "t" values ($2, $3, $4, $5, $6, $7, $8, $9, $10, $11)');
    expect(two.parameters).toHaveLength(11);
  });
});
