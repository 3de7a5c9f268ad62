// Configuration read by the MikroORM CLI (`npm run migration:create`).
import { defineConfig } from '@mikro-orm/postgresql';
import { loadConfig } from '../config.ts';
import { ormConfig } from './orm.ts';

const config = loadConfig();
export default defineConfig({
  ...ormConfig({ databaseUrl: config.databaseUrl ?? 'postgres://postgres@127.0.0.1:5432/deskflow_dev' }),
  // Migrations are generated from the entities, not from an existing list.
  migrations: { ...ormConfig({ databaseUrl: '' }).migrations, migrationsList: undefined },
});
