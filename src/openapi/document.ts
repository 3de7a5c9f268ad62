import { readFileSync } from 'node:fs';
import type Koa from 'koa';
import type Router from '@koa/router';
import { z } from 'zod';
import { createDocument, type CreateDocumentOptions, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponseObject } from 'zod-openapi';
import { isApiKeyCheck } from '../http/auth.ts';
import { jsonBodyOf, type JsonBodyRule } from '../http/body.ts';
import { ERROR_STATUS, type ErrorCode } from '../errors.ts';
import { errorEnvelope, errorSchema, describeCodes } from './errors.ts';
import { isUndocumented, specOf, type OperationSpec } from '../http/operation.ts';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_REPLAYED_HEADER } from '../idempotency/schema.ts';

type Layer = Router['stack'][number];

const pathId = z.string().meta({ format: 'uuid', description: 'A UUID; anything else answers 404.' });

/** One mounted route as the document sees it. */
export type MountedRoute = { method: string; path: string; spec: OperationSpec; apiKey: boolean; body?: JsonBodyRule };

const version: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

/**
 * The routes of the app's routers, in mount order: method (lower case, HEAD left out where GET
 * is there) and koa path. Throws, naming each, when a route has no operation(...) or
 * undocumented(...), or an operationId is used twice.
 */
export function mountedRoutes(app: Koa): MountedRoute[] {
  const routes: MountedRoute[] = [];
  const missing: string[] = [];
  for (const router of routersOf(app)) {
    router.stack.forEach((layer, i) => {
      if (layer.methods.length === 0 || layer.stack.some(isUndocumented)) return;
      const methods = layer.methods.filter((m) => !(m === 'HEAD' && layer.methods.includes('GET')));
      const spec = layer.stack.map(specOf).find((s) => s !== undefined);
      if (!spec) {
        missing.push(`${methods.join(',')} ${String(layer.path)}`);
        return;
      }
      const apiKey = router.stack.slice(0, i).some((before) => guards(before, layer) && before.stack.some(isApiKeyCheck));
      const body = layer.stack.map(jsonBodyOf).find((b) => b !== undefined);
      for (const method of methods) routes.push({ method: method.toLowerCase(), path: String(layer.path), spec, apiKey, body });
    });
  }
  if (missing.length > 0) {
    throw new Error(`Routes without an OpenAPI operation (add operation({...}) from src/http/operation.ts): ${missing.join('; ')}`);
  }
  const ids = routes.map((r) => r.spec.operationId);
  const repeated = ids.filter((id, i) => ids.indexOf(id) !== i);
  if (repeated.length > 0) throw new Error(`operationId used twice: ${[...new Set(repeated)].join(', ')}`);
  return routes;
}

/** The OpenAPI 3.1 document of everything the app serves, generated from the mounted routes and their zod schemas. */
export type OpenApiDocument = ReturnType<typeof createDocument>;

export function openApiDocument(app: Koa): OpenApiDocument {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of mountedRoutes(app)) {
    const path = toOpenApiPath(route.path);
    paths[path] = { ...paths[path], [route.method]: operationObject(route) };
  }
  return createDocument(
    {
      openapi: '3.1.0',
      info: {
        title: 'Deskflow API',
        version,
        description:
          'Support tickets and their automations. Every `/api` request except webhooks carries `Authorization: Bearer <key>` (keys are issued with the admin CLI). ' +
          'Every error answer is `{ error: { code, message, details? } }`; the codes are listed under the Error schema. The full rules are in docs/contract.md.',
      },
      servers: [{ url: '/' }],
      tags: [
        { name: 'Tickets', description: 'Tickets of the API key’s workspace (docs/contract.md §2).' },
        { name: 'Messages', description: 'The messages of a ticket; customer replies (§3).' },
        { name: 'Notes', description: 'Internal notes on a ticket: for the team, never sent to the customer.' },
        { name: 'Members', description: 'The members and admins of the API key’s workspace.' },
        { name: 'Workflows', description: 'Automation workflows: a trigger, conditions and actions (§4, §5).' },
        { name: 'Executions', description: 'Runs of a workflow: by hand, by webhook, and their steps (§4, §8).' },
        { name: 'Events', description: 'The live feed of the workspace’s ticket changes, as server-sent events (GET /api/v1/events).' },
        { name: 'Calendars', description: 'Business hours: when the desk is open, for workflows that count open time (Calendars).' },
        { name: 'Service levels', description: 'SLA policies, each ticket\u2019s clocks and the queue of what breaks next (docs/sla.md).' },
        { name: 'Knowledge', description: 'Articles the AI owner answers customers from, and their full-text search (docs/ai.md).' },
        { name: 'AI', description: 'The AI owner: its settings, and what it did and would do on a ticket (docs/ai.md).' },
        { name: 'Service', description: 'Health, readiness, metrics and this reference; no API key.' },
      ],
      paths,
      components: {
        schemas: { Error: errorSchema },
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'An API key of the workspace: `dfk_…`.' },
          metricsToken: { type: 'http', scheme: 'bearer', description: 'The METRICS_TOKEN the server was started with.' },
        },
      },
    },
    // The graph of a workflow is validated by src/graph after a plain object check (z.custom).
    {
      allowEmptySchema: { custom: true },
      override: (context) => {
        queryParameters(context);
        examples(context);
      },
    },
  );
}

/** Lowercase UUIDs of the kind Deskflow makes, handed out in turn so that the ids of one example differ. */
const EXAMPLE_IDS = [
  '3f2b8c1e-6d4a-4f7b-9c2e-8a1d5b7e4c90',
  '0b6d1f2e-3c4d-4e5f-8a9b-0c1d2e3f4a5b',
  '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  '7c6d5e4f-3a2b-4c1d-9e8f-7a6b5c4d3e2f',
];
let exampleIds = 0;

/**
 * Example values where the schema alone makes /docs show nonsense: Swagger UI invents a string
 * matching a UUID's pattern (mixed case, any version) or a timestamp's (the year 0630). Counts
 * and sizes say their bounds in their schemas (no negative totals).
 */
const examples: NonNullable<CreateDocumentOptions['override']> = ({ jsonSchema }) => {
  if ('examples' in jsonSchema || 'example' in jsonSchema) return;
  if (jsonSchema.format === 'uuid') jsonSchema.examples = [EXAMPLE_IDS[exampleIds++ % EXAMPLE_IDS.length]];
  else if (jsonSchema.format === 'date-time') jsonSchema.examples = ['2026-11-23T19:21:29.932Z'];
  else if (jsonSchema.format === 'email') jsonSchema.examples = ['casey@example.com'];
  // Swagger UI takes an integer's maximum (2^53 - 1) when its minimum is 0: the least value is the sane one.
  else if (jsonSchema.type === 'integer') jsonSchema.examples = [typeof jsonSchema.minimum === 'number' && jsonSchema.minimum > 0 ? jsonSchema.minimum : 0];
};

/**
 * Query parameters arrive as strings and are checked after parsing, which JSON Schema of the
 * input alone does not show: one checked against a list (`queryParam(…).pipe(oneOf(…))`) lists
 * its values, and one with a default (`.default(20)`) states it.
 */
const queryParameters: NonNullable<CreateDocumentOptions['override']> = ({ jsonSchema, zodSchema, io }) => {
  if (io !== 'input') return;
  if (zodSchema instanceof z.ZodPipe && zodSchema.out instanceof z.ZodEnum) jsonSchema.enum = zodSchema.out.options;
  if (zodSchema instanceof z.ZodDefault) jsonSchema.default = zodSchema.def.defaultValue;
};

/** Every answer carries the request's id (the caller's when it sent a sane one): quote it when reporting a problem. */
const requestIdHeader = z.object({
  'X-Request-Id': z.string().meta({ description: 'The id of this request, as in its log line: the one sent, when it was 1-128 visible ASCII characters, else a new UUID.' }),
});
const requestIdParam = z.object({
  'X-Request-Id': z.string().min(1).max(128).optional().meta({ description: 'An id of the caller\'s for this request, echoed and logged (1-128 visible ASCII characters; otherwise one is made).' }),
});
const idempotencyReplayedHeader = z.object({
  [IDEMPOTENCY_REPLAYED_HEADER]: z.literal('true').optional().meta({ description: 'Present when this is the stored answer to an earlier request with the same Idempotency-Key.' }),
});

function operationObject(route: MountedRoute): ZodOpenApiOperationObject {
  const { spec } = route;
  const pathParams = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
  const bodyRule = route.body ?? spec.rawBody;
  const hasBody = spec.body !== undefined || bodyRule !== undefined;
  const limit = bodyRule?.limitBytes;

  const codes = new Set<ErrorCode>(spec.errors ?? []);
  if (route.apiKey) for (const c of ['unauthorized', 'rate_limited', 'unavailable'] as const) codes.add(c);
  if (hasBody) for (const c of ['invalid_json', 'validation_failed', 'payload_too_large', 'unsupported_media_type'] as const) codes.add(c);
  if (spec.query) codes.add('validation_failed');
  if (pathParams.length > 0) codes.add('not_found');

  const keyed = spec.headers?.shape[IDEMPOTENCY_KEY_HEADER] !== undefined;
  const responses: Record<string, ZodOpenApiResponseObject> = {};
  for (const [status, r] of Object.entries(spec.responses)) {
    responses[status] = {
      description: r.description,
      ...(r.schema ? { content: { [r.contentType ?? 'application/json']: { schema: r.schema } } } : {}),
      headers: requestIdHeader.extend({ ...(keyed ? idempotencyReplayedHeader.shape : {}), ...r.headers?.shape }),
    };
  }
  for (const [status, group] of Object.entries(groupByStatus(codes))) {
    responses[status] = {
      description: describeCodes(group, limit),
      content: { 'application/json': { schema: errorEnvelope(group) } },
      headers: requestIdHeader.extend({
        ...(status === '401' ? { 'WWW-Authenticate': z.literal('Bearer').optional() } : {}),
        ...(status === '429' ? { 'Retry-After': z.string().meta({ description: 'Whole seconds to wait, at least 1.' }) } : {}),
        ...(status === '412' ? { ETag: z.string().meta({ description: 'The current entity tag of the resource.' }) } : {}),
      }),
    };
  }

  const path = pathParams.length > 0 ? z.object(Object.fromEntries(pathParams.map((p) => [p, pathId]))).extend(spec.params?.shape ?? {}) : undefined;
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: [spec.tag ?? defaultTag(route.path)],
    security: route.apiKey ? [{ apiKey: [] }] : spec.security === 'metricsToken' ? [{ metricsToken: [] }] : [],
    requestParams: { ...(path ? { path } : {}), ...(spec.query ? { query: spec.query } : {}), header: requestIdParam.extend(spec.headers?.shape ?? {}) },
    ...(hasBody
      ? {
          requestBody: {
            required: !bodyRule?.optional,
            description: limit ? `A JSON object of at most ${limit.toLocaleString('en')} bytes.` : undefined,
            content: { 'application/json': { schema: spec.body ?? z.object({}).loose() } },
          },
        }
      : {}),
    responses,
  };
}

function routersOf(app: Koa): Router[] {
  return app.middleware.map((mw) => (mw as { router?: Router }).router).filter((r): r is Router => r !== undefined);
}

/** A router-level middleware (no methods) mounted before `route` that runs for its path. */
function guards(before: Layer, route: Layer): boolean {
  return before.methods.length === 0 && typeof route.path === 'string' && before.match(route.path);
}

export const toOpenApiPath = (koaPath: string) => koaPath.replace(/:(\w+)/g, '{$1}');

function defaultTag(path: string): string {
  const segments = path.split('/').filter((s) => s && !s.startsWith(':') && s !== 'api' && s !== 'v1');
  const resource = [...segments].reverse().find((s) => ['tickets', 'messages', 'workflows', 'executions', 'calendars'].includes(s));
  return resource ? resource[0].toUpperCase() + resource.slice(1) : 'Service';
}

function groupByStatus(codes: Set<ErrorCode>): Record<string, ErrorCode[]> {
  const groups: Record<string, ErrorCode[]> = {};
  for (const code of Object.keys(ERROR_STATUS) as ErrorCode[]) {
    if (codes.has(code)) (groups[String(ERROR_STATUS[code])] ??= []).push(code);
  }
  return groups;
}
