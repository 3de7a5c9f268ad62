import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type Koa from 'koa';
import type { MikroORM } from '@mikro-orm/postgresql';
import { inject } from 'vitest';
import { createApp, type AppDeps } from '../../src/app.ts';
import { openOrm } from '../../src/db/orm.ts';
import { EventFeed, type FeedOptions } from '../../src/feed/hub.ts';
import { OutboxFeedSource } from '../../src/feed/store.ts';
import { PgNotifications } from '../../src/triggers/wakeups.ts';
import { createLogger } from '../../src/logger.ts';
import { CachedKeys } from '../../src/workspaces/key-cache.ts';
import { WorkspaceService } from '../../src/workspaces/service.ts';
import { useFixture } from './fixture.ts';
import { EventDelivery } from '../../src/triggers/event-delivery.ts';
import type { WorkflowEngine } from '../../src/executions/engine.ts';
import { testSecrets } from './mailbox.ts';

export type TestApp = {
  baseUrl: string;
  orm: MikroORM;
  /** The application itself, for tests that look at what it mounts. */
  koa: Koa;
  /** Resolves once the app has heard of every API key change committed so far (it hears of them within milliseconds). */
  keysCaughtUp: () => Promise<void>;
  close: () => Promise<void>;
};

/**
 * The real app on the run's test database, listening on a free port, keeping API keys in memory
 * and serving the event feed as the server does (`feed`: its settings).
 */
export async function startTestApp(overrides: Partial<AppDeps> = {}, opts: { feed?: FeedOptions } = {}): Promise<TestApp> {
  const orm = await openOrm({ databaseUrl: inject('databaseUrl'), poolMax: 20 });
  const keys = new CachedKeys(inject('databaseUrl'));
  await keys.listening;
  const logger = overrides.logger ?? createLogger('silent');
  const feed = new EventFeed({ source: new OutboxFeedSource(orm), wakeups: new PgNotifications(inject('databaseUrl')), logger, ...opts.feed });
  const app = createApp({
    orm,
    config: { rateLimit: { perSecond: 0, burst: 0 } },
    logger,
    keys,
    feed,
    secrets: () => testSecrets,
    ...overrides,
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    orm,
    koa: app,
    keysCaughtUp: () => keys.caughtUp(),
    close: async () => {
      await feed.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await keys.close();
      await orm.close();
    },
  };
}

/** The API fixture of a test file: a TestApp started before the file's tests and closed after them. */
export function useTestApp(overrides: Partial<AppDeps> = {}, opts: { feed?: FeedOptions } = {}): TestApp {
  return useFixture(() => startTestApp(overrides, opts), (app) => app.close());
}

export type TestWorkspace = { workspaceId: string; key: string; keyId: string };

/** A fresh workspace with one API key and the given members. */
export async function createWorkspace(orm: MikroORM, members: Array<{ userId: string; role?: 'member' | 'admin' }> = []): Promise<TestWorkspace> {
  const workspaces = new WorkspaceService(orm.em.fork());
  const workspace = await workspaces.createWorkspace(`test-${Math.random().toString(36).slice(2, 8)}`);
  const { id, key } = await workspaces.createKey(workspace.id, 'test');
  for (const m of members) await workspaces.addMember(workspace.id, m.userId, m.role ?? 'member');
  return { workspaceId: workspace.id, key, keyId: id };
}

/** A fresh workspace of `app` (see createWorkspace) and a client with its key. */
export async function newWorkspace(app: { orm: MikroORM; baseUrl: string }, members: Array<{ userId: string; role?: 'member' | 'admin' }> = []): Promise<{ ws: TestWorkspace; api: Client }> {
  const ws = await createWorkspace(app.orm, members);
  return { ws, api: client(app.baseUrl, ws.key) };
}

export type ApiResponse<T = any> = { status: number; headers: Headers; body: T };

/**
 * A workspace of one test file's own, with one API key and the given members, created before
 * its tests (after the app has started), and a client with its key.
 */
export function useWorkspace(app: { orm: MikroORM; baseUrl: string }, members: Array<{ userId: string; role?: 'member' | 'admin' }> = []): { ws: TestWorkspace; api: Client } {
  const ws = useFixture(() => createWorkspace(app.orm, members), async () => {});
  return { ws, api: client(() => app.baseUrl, () => ws.key) };
}

/** A small JSON client bound to a base URL and key (either may be given as a function, read at each call). */
export function client(baseUrl: string | (() => string), key?: string | (() => string)) {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> => {
    const resolvedKey = typeof key === 'function' ? key() : key;
    const res = await fetch((typeof baseUrl === 'function' ? baseUrl() : baseUrl) + path, {
      method,
      headers: {
        ...(resolvedKey ? { authorization: `Bearer ${resolvedKey}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text for the assertion message */
    }
    return { status: res.status, headers: res.headers, body: parsed as any };
  };
  return withVerbs(call);
}
export type Client = ReturnType<typeof client>;

type Call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<ApiResponse>;

/** `get`, `post`, `patch` and `delete` on top of a `call`. */
export function withVerbs(call: Call) {
  return {
    get: (path: string, headers?: Record<string, string>) => call('GET', path, undefined, headers),
    post: (path: string, body?: unknown, headers?: Record<string, string>) => call('POST', path, body, headers),
    patch: (path: string, body?: unknown, headers?: Record<string, string>) => call('PATCH', path, body, headers),
    delete: (path: string, headers?: Record<string, string>) => call('DELETE', path, undefined, headers),
    call,
  };
}

/** Sends `payload` as JSON text, as it is (a payload JSON cannot carry becomes an empty body). */
export function sendJson(api: Client, method: string, path: string, payload: unknown): Promise<ApiResponse> {
  const raw = JSON.stringify(payload);
  return api.call(method, path, raw === undefined ? '' : raw, { 'content-type': 'application/json' });
}

/** An engine for relays of workspaces without active workflows: nothing is ever started. */
const noEngine: WorkflowEngine = {
  start: () => Promise.reject(new Error('no workflow engine in this test')),
  cancel: () => Promise.reject(new Error('no workflow engine in this test')),
  signalCustomerReply: () => Promise.resolve(),
  signalApprovalDecided: () => Promise.resolve(),
  ping: () => Promise.resolve(),
};

/**
 * Delivers the workspace's waiting events as a worker's relay does (marking them delivered,
 * rebuilding search documents), for API tests that run no relay; returns how many. The
 * workspace must have no active workflow: no engine runs here.
 */
export async function deliverEvents(app: { orm: MikroORM }, workspaceId: string): Promise<number> {
  const delivery = new EventDelivery({ orm: app.orm, engine: noEngine, logger: createLogger('silent') });
  let delivered = 0;
  for (;;) {
    const claimed = await delivery.deliverBatch(100, [workspaceId]);
    if (claimed === 0) return delivered;
    delivered += claimed;
  }
}
