import type { Middleware } from 'koa';
import type { z } from 'zod';
import { validationFailed, type ErrorCode } from '../errors.ts';
import { queryProblem } from './json.ts';
import { validate, type ListPaths } from './validate.ts';

/**
 * How a route describes itself in the OpenAPI document (GET /openapi.json).
 *
 * Every route passes `operation({...})` as its first middleware, next to the code that answers,
 * and reads its validated input from it (`.query(ctx)`, `.body(ctx)`), typed from the schemas
 * the spec names, so that each schema is named once:
 *
 *   const dryRun = operation({ operationId: 'dryRunWorkflow', summary: '…', body: dryRunBody,
 *     responses: { 200: { description: '…', schema: dryRunEnvelope } }, errors: ['workflow_inactive'] });
 *   router.post('/:id/dry-run', dryRun, jsonBody(MiB), async (ctx) => {
 *     const workflow = await workflows.get(…);   // 404 first
 *     const input = dryRun.body(ctx);              // then 400 for a bad body
 *     … });
 *
 * The input is validated where the handler asks for it, not before the handler runs: the order
 * of a route's answers (404 for an unknown id before 400 for a bad body) is the handler's.
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
  /** How validation details name list items in the body: `hours.0.to` (default) or `targets[2].seconds`. */
  listPaths?: ListPaths;
};

export const OPERATION = Symbol('openapi.operation');
export const UNDOCUMENTED = Symbol('openapi.undocumented');

type Marked = Middleware & { [OPERATION]?: OperationSpec; [UNDOCUMENTED]?: string };

/**
 * What a route's handler reads through its operation: the query and the JSON body, validated
 * with the schemas of its spec (a 400 `validation_failed` naming each offending field).
 */
type OperationInput<S extends OperationSpec> = (S extends { query: infer Q extends z.ZodType }
  ? { query(ctx: { query: unknown }): z.output<Q> }
  : unknown) &
  (S extends { body: infer B extends z.ZodType } ? { body(ctx: { request: { body?: unknown } }): z.output<B> } : unknown);

/** The route's entry in the OpenAPI document (a middleware that only passes the request on), and its validated input. */
export function operation<S extends OperationSpec>(spec: S): Middleware & OperationInput<S> {
  const describedRoute: Marked = (_ctx, next) => next();
  describedRoute[OPERATION] = spec;
  const reads: Record<string, (ctx: { query?: unknown; request?: { body?: unknown } }) => unknown> = {};
  const { query, body } = spec;
  if (query) {
    reads.query = (ctx) => {
      const problem = queryProblem((ctx.query ?? {}) as Record<string, unknown>);
      if (problem) throw validationFailed([problem]);
      return validate(query, ctx.query, '', 'dotted', 'query parameter');
    };
  }
  if (body) reads.body = (ctx) => validate(body, ctx.request?.body, '', spec.listPaths);
  return Object.assign(describedRoute, reads) as Middleware & OperationInput<S>;
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
