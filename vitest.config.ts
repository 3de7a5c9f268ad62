import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts', 'test/helpers/temporal-setup.ts'],
    include: ['test/**/*.test.ts'],
    // Real-process fault scenarios run apart: `npm run test:faults` (vitest.faults.config.ts).
    exclude: [...configDefaults.exclude, 'test/faults/**'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Two cores: files run in parallel, each in its own workspace of the shared test database.
    pool: 'forks',
    maxWorkers: 2,
  },
});
