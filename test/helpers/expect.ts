import type { MikroORM } from '@mikro-orm/postgresql';
import { expect } from 'vitest';
import { OutboxEvent } from '../../src/events/entity.ts';
import type { ApiResponse } from './app.ts';

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

/** Outbox rows, oldest first. */
export async function outboxEvents(orm: MikroORM, where: { ticketId?: string; workspace?: string }): Promise<OutboxEvent[]> {
  return orm.em.fork().find(OutboxEvent, where, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
