import type { MikroORM } from '@mikro-orm/postgresql';
import { expect } from 'vitest';
import { OutboxEvent } from '../../src/events/entity.ts';
import { WorkspaceService } from '../../src/workspaces/service.ts';
import { client, type ApiResponse, type TestApp, type TestWorkspace } from './app.ts';

/** The exact public field sets of docs/contract.md and docs/contract.md §1, sorted. */
export const CREATED_TICKET_FIELDS = ['createdAt', 'customerEmail', 'customerName', 'id', 'priority', 'source', 'status', 'subject'];
export const TICKET_FIELDS = [
  'assignedTo',
  'createdAt',
  'customerEmail',
  'customerName',
  'id',
  'priority',
  'resolutionType',
  'source',
  'status',
  'subject',
  'tags',
  'updatedAt',
];
export const MESSAGE_FIELDS = ['body', 'bodyHtml', 'createdAt', 'direction', 'id', 'senderEmail', 'senderName', 'ticketId'];

export const keysOf = (o: object): string[] => Object.keys(o).sort();

/** A body that is exactly `{ [key]: an object of exactly `fields` }` (sorted); returns that object. */
export function expectOnly(body: any, key: string, fields: string[]): any {
  expect(keysOf(body)).toEqual([key]);
  expect(keysOf(body[key])).toEqual(fields);
  return body[key];
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

type ErrorResponse = { status: number; headers: { get(name: string): string | null } | Record<string, unknown>; body: any };

/**
 * docs/contract.md §1: every failure is JSON `{ error: { code, message, details? } }` with a snake_case
 * code and a human message, details (when present) a list of `{ path, message }`.
 */
export function expectError(res: ErrorResponse, status: number, code: string): void {
  expect({ status: res.status, body: res.body }, JSON.stringify(res.body)).toMatchObject({ status, body: { error: { code } } });
  expectErrorShape(res.body);
}

export function expectErrorShape(body: any): void {
  expect(body, 'error body').toBeTypeOf('object');
  expect(keysOf(body)).toEqual(['error']);
  const { error } = body;
  expect(keysOf(error).filter((k) => k !== 'details')).toEqual(['code', 'message']);
  expect(error.code).toMatch(/^[a-z]+(_[a-z]+)*$/);
  expect(error.message).toBeTypeOf('string');
  expect(error.message.length).toBeGreaterThan(0);
  expect(error.message).not.toMatch(/\n\s+at |select |insert |update .* set /i);
  if ('details' in error) {
    expect(Array.isArray(error.details)).toBe(true);
    for (const d of error.details) {
      expect(keysOf(d)).toEqual(['message', 'path']);
      expect(d.path).toBeTypeOf('string');
      expect(d.message).toBeTypeOf('string');
    }
  }
}

/** A 400 validation_failed whose details name `path` (with a message matching `message`, when given). */
export function expectValidation(res: ApiResponse, path: string, message?: RegExp): void {
  expectError(res, 400, 'validation_failed');
  expect(res.body.error.details.map((d: { path: string }) => d.path), JSON.stringify(res.body)).toContain(path);
  if (message) expect(res.body.error.details.find((d: { path: string }) => d.path === path).message).toMatch(message);
}

export function expectJson(res: { headers: Headers | Record<string, unknown> }): void {
  const type = res.headers instanceof Headers ? res.headers.get('content-type') : (res.headers['content-type'] as string | undefined);
  expect(type).toMatch(/^application\/json/);
}

/** A request to one endpoint: method, path and a body that would succeed with a good key. */
export type Endpoint = readonly [method: string, path: string, body: unknown];

/**
 * docs/contract.md §1: every one of `endpoints`, asked with `headers` (no good key), answers
 * 401 unauthorized, in JSON, with WWW-Authenticate: Bearer.
 */
export async function expectUnauthorized(baseUrl: string, endpoints: readonly Endpoint[], headers: Record<string, string>): Promise<void> {
  const anonymous = client(baseUrl);
  for (const [method, path, body] of endpoints) {
    const res = await anonymous.call(method, path, body, headers);
    expectError(res, 401, 'unauthorized');
    expectJson(res);
    expect(res.headers.get('www-authenticate'), `${method} ${path}`).toBe('Bearer');
  }
}

/**
 * docs/contract.md §1: a revoked key is refused from then on on every one of `endpoints`, while
 * another key of the workspace keeps working. Both keys are new: the first reads `paths.before`
 * before it is revoked, the other `paths.after` after.
 */
export async function expectRevokedKeyRefused(app: TestApp, ws: TestWorkspace, endpoints: readonly Endpoint[], paths: { before: string; after: string }): Promise<void> {
  const workspaces = new WorkspaceService(app.orm.em.fork());
  const doomed = await workspaces.createKey(ws.workspaceId, 'doomed');
  const spare = await workspaces.createKey(ws.workspaceId, 'spare');
  expect((await client(app.baseUrl, doomed.key).get(paths.before)).status).toBe(200);
  expect(await workspaces.revokeKey(doomed.id)).toBe(true);
  await app.keysCaughtUp();
  await expectUnauthorized(app.baseUrl, endpoints, { authorization: `Bearer ${doomed.key}` });
  expect((await client(app.baseUrl, spare.key).get(paths.after)).status).toBe(200);
}

/** Outbox rows, oldest first. */
export async function outboxEvents(orm: MikroORM, where: { ticketId?: string; workspace?: string }): Promise<OutboxEvent[]> {
  return orm.em.fork().find(OutboxEvent, where, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
