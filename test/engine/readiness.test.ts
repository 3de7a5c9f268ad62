import { describe, expect, it } from 'vitest';
import { client } from '../helpers/app.ts';
import { useEngineApp } from '../helpers/engine.ts';

// docs/contract.md §7: GET /readyz (no auth) answers 200 only when the database and Temporal answer.
// (The 503 while Temporal is down is in outage.test.ts.)

const app = useEngineApp({ worker: false });

describe('GET /readyz', () => {
  it('reports the database and Temporal ok', async () => {
    const res = await client(app.baseUrl).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { database: 'ok', temporal: 'ok' } });
  });
});
