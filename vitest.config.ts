import { configDefaults, defineConfig } from 'vitest/config';
import { toolEnv } from './scripts/test-tools.ts';

// The binaries `npm test` provisioned (scripts/provision.ts), for whatever the environment does not name.
Object.assign(process.env, toolEnv(process.env.DESKFLOW_TEST_TEMPORAL === 'cluster' ? 'cluster' : 'test'));

/**
 * Two tiers. `unit` (test/unit): pure logic and fakes, no database and no Temporal, so it runs
 * alone in seconds (`npm run test:unit`). `integration` (everything else): the real app on a
 * PostgreSQL database and a Temporal server that its global setup starts (embedded ones when
 * none is configured). `npm test` runs both, after scripts/provision.ts has installed what the
 * integration tier starts (the Temporal CLI, Mailpit, Dovecot, Chromium). Real-process fault scenarios run apart:
 * `npm run test:faults` (vitest.faults.config.ts).
 */
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Two cores: files run in parallel, each in its own workspace of the shared test database.
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/unit/**', 'test/faults/**'],
          globalSetup: ['test/helpers/global-setup.ts', 'test/helpers/temporal-setup.ts', 'test/helpers/console-setup.ts'],
        },
      },
    ],
  },
});
