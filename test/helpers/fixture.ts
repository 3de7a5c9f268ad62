import { afterAll, beforeAll } from 'vitest';

/**
 * A resource shared by the tests of one file: started before them (beforeAll) and closed after
 * them (afterAll). The object returned stands for the started resource: its fields and methods
 * are those of the resource, so read them inside tests and hooks, not while the file loads.
 * Hooks run as a stack: one registered before this call runs before the start and after the
 * close (a server the resource talks to), one registered after it the other way round.
 */
export function useFixture<T extends object>(start: () => Promise<T>, close: (resource: T) => Promise<unknown>): T {
  let resource: T | undefined;
  beforeAll(async () => {
    resource = await start();
  });
  afterAll(async () => {
    if (resource) await close(resource);
  });
  const started = (key: PropertyKey): T => {
    if (resource === undefined) throw new Error(`${String(key)} of a test fixture read before the fixture started: read it inside a test or hook`);
    return resource;
  };
  return new Proxy({} as T, {
    get: (_target, key) => Reflect.get(started(key), key),
    set: (_target, key, value) => Reflect.set(started(key), key, value),
    has: (_target, key) => key in started(key),
  });
}
