import type { Middleware } from 'koa';
import type { z } from 'zod';
import type { ErrorCode } from '../errors.ts';

/**
 * How a route describes itself in the OpenAPI document (GET /openapi.json).
 *
 * Every route passes `operation({...})` as its first middleware, next to the code that answers:
 *
 *   router.post('/:id/dry-run', operation({ operationId: 'dryRunWorkflow', summary: '…', body: dryRunBody,
 *     headers: z.object({ 'Idempotency-Key': … }), responses: { 200: { description: '…', schema: dryRunEnvelope } },
 *     errors: ['workflow_inactive'] }), jsonBody(MiB), async (ctx) => { … validate(dryRunBody, ctx.request.body) … });
 *
 * The document is built from the app's mounted routers (src/openapi/document.ts): the path and
 * method come from the mount, path parameters are UUIDs unless `params` says otherwise, the API
 * key requirement from the `requireApiKey` middleware in front of the route, the body limit and
 * its 400/413/415 answers from `jsonBody(...)`. A mounted route without `operation(...)` (or
 * `undocumented(...)`) makes the document fail to build, so test/api/openapi.test.ts fails.
 */
export type OperationSpec = {
  /** Unique, camelCase: also the id "try it" uses on the docs page. */
  operationId: string;
  summary: string;
  description?: string;
  /** Groups operations on the docs page; defaults from the path (Tickets, Messages, Workflows, …). */
  tag?: string;
  /** Path parameters that are not UUIDs (every `:param` not named here is a UUID). */
  params?: z.ZodObject;
  /** The schema the route validates its query with. */
  query?: z.ZodObject;
  /** Request headers the route reads (names as sent, e.g. `Idempotency-Key`). */
  headers?: z.ZodObject;
  /** The schema the route validates its JSON body with. */
  body?: z.ZodType;
  /** For a route that reads its body itself rather than through jsonBody(): its limit, and whether it may be left out. */
  rawBody?: { limitBytes: number; optional: boolean };
  /** Success answers by status; a response without `schema` has no body (204) or is not JSON (`contentType`). */
  responses: Record<number, { description: string; schema?: z.ZodType; contentType?: string; headers?: z.ZodObject }>;
  /**
   * Error codes this route answers with beyond those its mount implies (401/429 behind the key,
   * 400/413/415 for a body, 400 for a query, 404 for path parameters, 503 behind the key).
   */
  errors?: ErrorCode[];
  /** Who may call it when not behind the API key: `none` (public) or a scheme of the document (e.g. `metricsToken`). */
  security?: 'none' | 'metricsToken';
};

export const OPERATION = Symbol('openapi.operation');
export const UNDOCUMENTED = Symbol('openapi.undocumented');

type Marked = Middleware & { [OPERATION]?: OperationSpec; [UNDOCUMENTED]?: string };

/** The route's entry in the OpenAPI document; a middleware that only passes the request on. */
export function operation(spec: OperationSpec): Middleware {
  const describedRoute: Marked = (_ctx, next) => next();
  describedRoute[OPERATION] = spec;
  return describedRoute;
}

/** Marks a route that is deliberately left out of the document (the files of the docs page), saying why. */
export function undocumented(reason: string): Middleware {
  const hiddenRoute: Marked = (_ctx, next) => next();
  hiddenRoute[UNDOCUMENTED] = reason;
  return hiddenRoute;
}

export function specOf(mw: unknown): OperationSpec | undefined {
  return (mw as Marked)[OPERATION];
}

export function isUndocumented(mw: unknown): boolean {
  return typeof (mw as Marked)[UNDOCUMENTED] === 'string';
}
