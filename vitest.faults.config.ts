import { defineConfig } from 'vitest/config';
import { toolEnv } from './scripts/test-tools.ts';

// The binaries `npm run test:faults` provisioned (scripts/provision.ts), for whatever the environment does not name.
Object.assign(process.env, toolEnv('faults'));

/**
 * `npm run test:faults`: real processes (`npm run start…`, the embedded PostgreSQL, the Temporal
 * dev server) started, signalled and killed by pid. Each test starts its own on free ports in a
 * data directory of its own and kills whatever of them is left afterwards (test/faults/helpers).
 * Slow by nature (every start initialises or starts a cluster), so kept out of `npm test`; one
 * file at a time, so that the scenarios' timings do not depend on each other.
 */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    globalSetup: ['test/faults/helpers/global-setup.ts'],
    testTimeout: 240_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
  },
});
