import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import { openOrm } from '../../src/db/orm.ts';

/**
 * Entities and migrations agree: on a database migrated to the latest migration, the schema
 * diff that `npm run migration:create` writes is empty. A migration that was not generated
 * after an entity change, or DDL the entities do not declare (a trigger, an index), fails here.
 */
let orm: MikroORM;
beforeAll(async () => {
  orm = await openOrm({ databaseUrl: inject('databaseUrl'), poolMax: 2 });
});
afterAll(async () => {
  await orm.close();
});

describe('schema', () => {
  it('needs no migration on a fully migrated database', async () => {
    const pending = await orm.migrator.getPending();
    expect(pending).toEqual([]);
    // The same diff the migrator's `create` computes (no snapshot: the live database).
    const diff = await orm.schema.getUpdateSchemaMigrationSQL({ wrap: false });
    expect(diff.up.trim(), 'npm run migration:create would write this migration').toBe('');
    expect(await orm.migrator.checkSchema()).toBe(false);
  });
});
