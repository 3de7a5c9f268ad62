// GET /openapi.json: a valid OpenAPI 3.1 document of every mounted route, served without a key,
// agreeing with docs/contract.md on endpoints and error codes.
import { readFileSync } from 'node:fs';
import Koa from 'koa';
import Router from '@koa/router';
import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { operation, undocumented } from '../../src/http/operation.ts';
import { openApiDocument } from '../../src/openapi/document.ts';
import { client, newWorkspace, useTestApp } from '../helpers/app.ts';
import { fetchDocument, type OpenApi } from '../helpers/openapi.ts';
import { UNKNOWN_ID } from '../helpers/workflows.ts';
import { newTicket } from '../helpers/api.ts';
import { askApproval } from '../helpers/approvals.ts';

const app = useTestApp({ config: { rateLimit: { perSecond: 0, burst: 0 }, metricsToken: 'scrape-secret' } });
let doc: OpenApi;
beforeAll(async () => {
  doc = await fetchDocument(app.baseUrl);
});

const toOpenApi = (koaPath: string) => koaPath.replace(/:(\w+)/g, '{$1}');
const operationsOf = (d: OpenApi) => Object.entries(d.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));

/** What the app's routers mount, read from koa-router's stack: `METHOD /path` (HEAD beside GET left out). */
function mountedRoutes(koa: Koa): { documented: string[]; hidden: string[] } {
  const documented: string[] = [];
  const hidden: string[] = [];
  for (const mw of koa.middleware as Array<{ router?: Router }>) {
    for (const layer of mw.router?.stack ?? []) {
      const names = layer.stack.map((f) => f.name);
      for (const method of layer.methods.filter((m) => m !== 'HEAD' || !layer.methods.includes('GET'))) {
        (names.includes('hiddenRoute') ? hidden : documented).push(`${method} ${toOpenApi(String(layer.path))}`);
      }
    }
  }
  return { documented, hidden };
}

describe('GET /openapi.json', () => {
  it('is served without a key, as JSON', async () => {
    const res = await fetch(`${app.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await res.json()) as OpenApi).openapi).toBe('3.1.0');
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('the validator refuses a broken document (the check can fail)', async () => {
    const broken = structuredClone(doc) as Record<string, any>;
    delete broken.paths['/api/v1/tickets'].get.responses;
    broken.paths['/api/v1/tickets'].get.parameters[0].in = 'body';
    expect((await new Validator().validate(broken as Parameters<Validator['validate']>[0])).valid).toBe(false);
  });

  it('lists every mounted route, and nothing that is not mounted', () => {
    const { documented, hidden } = mountedRoutes(app.koa);
    expect(documented.length).toBeGreaterThan(15);
    expect(operationsOf(doc).sort()).toEqual([...new Set(documented)].sort());
    // Only the files of the docs page and of the console are left out, on purpose.
    expect(hidden.sort()).toEqual(['GET /console/assets/{file}', 'GET /docs/{file}']);
  });

  it('fails to build, naming the route, when a mounted route does not describe itself', () => {
    const koa = new Koa();
    const router = new Router();
    router.get('/described', operation({ operationId: 'described', summary: 'Described', security: 'none', responses: { 200: { description: 'ok' } } }), () => {});
    router.get('/left-out', undocumented('a test'), () => {});
    router.post('/api/things/:id/forgotten', () => {});
    koa.use(router.routes());
    expect(() => openApiDocument(koa)).toThrow(/POST \/api\/things\/:id\/forgotten/);
  });

  it('lists the endpoints of docs/contract.md, with the same methods and paths', () => {
    const contract = readFileSync(new URL('../../docs/contract.md', import.meta.url), 'utf8');
    const table = contract.slice(contract.indexOf('### Endpoints'), contract.indexOf('### Ticket'));
    const endpoints = [...table.matchAll(/^\| (GET|POST|PATCH|DELETE|PUT) \| ([^|]+) \|/gm)].flatMap(([, method, paths]) =>
      [...paths.matchAll(/`([^`]+)`/g)].map(([, path]) => `${method} ${toOpenApi(path)}`),
    );
    expect(endpoints.length).toBeGreaterThan(15);
    expect(operationsOf(doc).sort()).toEqual(endpoints.sort());
  });

  it('lists the error codes of docs/contract.md with their statuses', () => {
    const contract = readFileSync(new URL('../../docs/contract.md', import.meta.url), 'utf8');
    const rows = [...contract.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map(([, status, code]) => `${status} ${code}`);
    const description = String((doc.components.schemas.Error as { description: string }).description);
    const documented = [...description.matchAll(/`([a-z_]+)` \((\d{3})\)/g)].map(([, code, status]) => `${status} ${code}`);
    expect(rows.length).toBeGreaterThan(10);
    expect(documented.sort()).toEqual(rows.sort());
  });

  it('says which operations need the API key, and those answer 401 without one', async () => {
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { security?: Array<Record<string, unknown>> }>).map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        keyed: op.security?.some((s) => 'apiKey' in s) ?? false,
      })),
    );
    const anonymous = client(app.baseUrl);
    const keyed = operations.filter((o) => o.keyed);
    expect(keyed.length).toBeGreaterThan(10);
    for (const { method, path } of keyed) {
      const res = await anonymous.call(method, path.replace(/\{\w+\}/g, UNKNOWN_ID), method === 'GET' || method === 'DELETE' ? undefined : {});
      expect(res.status, `${method} ${path}`).toBe(401);
    }
    const open = operations.filter((o) => !o.keyed).map((o) => `${o.method} ${o.path}`);
    expect(open.sort()).toEqual(['GET /console', 'GET /docs', 'GET /healthz', 'GET /metrics', 'GET /openapi.json', 'GET /readyz', 'POST /api/workflows/{id}/webhook']);
  });

  it('documents X-Request-Id on every answer, and Idempotency-Replayed where Idempotency-Key is taken', async () => {
    type Op = { parameters?: Array<{ in: string; name: string }>; responses: Record<string, { headers?: Record<string, unknown> }> };
    const ops = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item as Record<string, Op>).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })));
    for (const { name, op } of ops) {
      expect(op.parameters?.some((p) => p.in === 'header' && p.name === 'X-Request-Id'), name).toBe(true);
      for (const [status, response] of Object.entries(op.responses)) expect(Object.keys(response.headers ?? {}), `${name} ${status}`).toContain('X-Request-Id');
      const keyed = op.parameters?.some((p) => p.in === 'header' && p.name === 'Idempotency-Key') ?? false;
      const success = Object.entries(op.responses).filter(([status]) => status.startsWith('2'));
      for (const [status, response] of success) expect(Object.keys(response.headers ?? {}).includes('Idempotency-Replayed'), `${name} ${status}`).toBe(keyed);
    }
    expect(ops.filter(({ op }) => op.parameters?.some((p) => p.name === 'Idempotency-Key')).map((o) => o.name).sort()).toEqual([
      'POST /api/approvals/{id}/decision',
      'POST /api/v1/tickets',
      'POST /api/v1/tickets/{id}/messages',
      'POST /api/v1/tickets/{id}/notes',
      'POST /api/v1/tickets/{id}/replies',
      'POST /api/workflows/{id}/trigger',
    ]);
    const res = await fetch(`${app.baseUrl}/openapi.json`, { headers: { 'x-request-id': 'my-trace-42' } });
    expect(res.headers.get('x-request-id')).toBe('my-trace-42');
  });

  it('documents the request bodies the routes validate: required fields and no others', async () => {
    const { ws, api } = await newWorkspace(app, [{ userId: 'alice' }, { userId: 'bob' }]);
    const ids = {
      '/api/v1/tickets': (await api.post('/api/v1/tickets', newTicket())).body.data.id,
      '/api/workflows': (await api.post('/api/workflows', { name: 'Bodies' })).body.workflow.id,
      '/api/calendars': (await api.post('/api/calendars', { name: 'Bodies', timeZone: 'UTC', hours: [{ day: 'mon', from: '09:00', to: '17:00' }] })).body.calendar.id,
      '/api/approvals': (await askApproval(app.orm, api, ws.workspaceId)).approvalId,
      '/api/sla-policies': (await api.post('/api/sla-policies', { name: 'Bodies', targets: [] })).body.policy.id,
      '/api/knowledge': (await api.post('/api/knowledge', { title: 'Bodies', body: 'Bodies.' })).body.article.id,
    };
    type Body = { required?: string[]; additionalProperties?: unknown };
    const strictBodies = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { requestBody?: { content: Record<string, { schema: Body }> } }>)
        .map(([method, op]) => ({ method: method.toUpperCase(), path, schema: op.requestBody?.content['application/json'].schema }))
        .filter((o): o is { method: string; path: string; schema: Body } => o.schema?.additionalProperties === false),
    );
    expect(strictBodies.map((b) => `${b.method} ${b.path}`).sort()).toEqual([
      'PATCH /api/ai',
      'PATCH /api/calendars/{id}',
      'PATCH /api/knowledge/{id}',
      'PATCH /api/sla-policies/{id}',
      'PATCH /api/v1/tickets/{id}',
      'PATCH /api/workflows/{id}',
      'POST /api/approvals/{id}/decision',
      'POST /api/calendars',
      'POST /api/knowledge',
      'POST /api/sla-policies',
      'POST /api/sla-policies/backtest',
      'POST /api/v1/tickets',
      'POST /api/v1/tickets/{id}/ai/drafts/{draftId}/send',
      'POST /api/v1/tickets/{id}/messages',
      'POST /api/v1/tickets/{id}/notes',
      'POST /api/v1/tickets/{id}/replies',
      'POST /api/v1/tickets/{id}/tags',
      'POST /api/workflows',
      'POST /api/workflows/dry-run',
      'POST /api/workflows/{id}/backtest',
      'POST /api/workflows/{id}/dry-run',
      'POST /api/workflows/{id}/trigger',
    ]);
    for (const { method, path, schema } of strictBodies) {
      const prefix = (Object.keys(ids) as Array<keyof typeof ids>).find((p) => path.startsWith(p)) ?? '/api/workflows';
      const res = await api.call(method, path.replace('{id}', ids[prefix]).replace('{draftId}', ids[prefix]), { notAField: 1 });
      expect(res.status, `${method} ${path}`).toBe(400);
      const named = (res.body.error.details as Array<{ path: string }>).map((d) => d.path);
      expect(named, `${method} ${path}`).toEqual(expect.arrayContaining(['notAField', ...(schema.required ?? [])]));
    }
  });

  it('shows nothing of a workspace: the same document with a key, without its ids, key or secrets', async () => {
    const { ws, api } = await newWorkspace(app);
    const ticket = (await api.post('/api/v1/tickets', newTicket())).body.data;
    const withKey = (await api.get('/openapi.json')).body;
    expect(withKey).toEqual(doc);
    const text = JSON.stringify(withKey);
    for (const secret of [ws.workspaceId, ws.keyId, ws.key, ws.key.slice(0, 20), ticket.id, 'scrape-secret']) expect(text).not.toContain(secret);
  });
});
