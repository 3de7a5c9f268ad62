// Checks real answers against the served OpenAPI document: each request names a documented
// operation, its status is documented for it, and its JSON body validates against the
// documented schema (JSON Schema 2020-12, as OpenAPI 3.1 uses it).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { client, withVerbs, type ApiResponse } from './app.ts';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

type Schema = Record<string, unknown>;
type Operation = { operationId: string; responses: Record<string, { content?: Record<string, { schema: Schema }> }> };
export type OpenApi = { openapi: string; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

export async function fetchDocument(baseUrl: string): Promise<OpenApi> {
  const res = await fetch(`${baseUrl}/openapi.json`);
  if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as OpenApi;
}

/** `/api/workflows/{id}` as a pattern that matches `/api/workflows/<anything but a slash>`. */
const templatePattern = (template: string) => new RegExp(`^${template.replace(/\{[^/}]+\}/g, '[^/]+')}$`);

export class ResponseChecker {
  /** `operationId status` of every answer checked so far. */
  readonly seen = new Set<string>();
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: Array<{ template: string; pattern: RegExp; params: number }>;
  private readonly doc: OpenApi;

  constructor(doc: OpenApi) {
    this.doc = doc;
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'openapi.json', components: doc.components });
    // A literal path beats a template (`/api/workflows/dry-run` before `/api/workflows/{id}`).
    this.templates = Object.keys(doc.paths)
      .map((template) => ({ template, pattern: templatePattern(template), params: (template.match(/\{/g) ?? []).length }))
      .sort((a, b) => a.params - b.params);
  }

  /** The documented operation of a request, or an error naming what is missing. */
  operation(method: string, url: string): { template: string; op: Operation } {
    const path = url.split('?')[0];
    for (const { template, pattern } of this.templates) {
      const op = this.doc.paths[template][method.toLowerCase()];
      if (pattern.test(path) && op) return { template, op };
    }
    throw new Error(`${method} ${path} is not in the OpenAPI document`);
  }

  check(method: string, url: string, res: ApiResponse): void {
    const { template, op } = this.operation(method, url);
    const where = `${method} ${template} → ${res.status}`;
    const response = op.responses[String(res.status)];
    if (!response) throw new Error(`${where}: status not documented (documented: ${Object.keys(op.responses).join(', ')}); body ${JSON.stringify(res.body)}`);
    this.seen.add(`${op.operationId} ${res.status}`);
    if (!response.content) {
      if (res.body !== undefined) throw new Error(`${where}: documented without a body, answered ${JSON.stringify(res.body)}`);
      return;
    }
    const mediaType = (res.headers.get('content-type') ?? '').split(';')[0].trim();
    const documented = Object.keys(response.content).map((type) => type.split(';')[0].trim());
    if (!documented.includes(mediaType)) throw new Error(`${where}: answered ${mediaType}, documented ${documented.join(', ')}`);
    const schema = response.content['application/json']?.schema;
    if (!schema) return;
    const key = `${template} ${method} ${res.status}`;
    let validate = this.validators.get(key);
    if (!validate) {
      // Component references (#/components/...) resolve against the document's components.
      validate = this.ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/')));
      this.validators.set(key, validate);
    }
    if (!validate(res.body)) {
      throw new Error(`${where}: body does not match the document: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(res.body)}`);
    }
  }

  /** The `data` of one server-sent event of a stream (`text/event-stream` answered with `status`) against the documented schema. */
  checkStreamedData(method: string, url: string, status: number, data: unknown): void {
    const { template, op } = this.operation(method, url);
    const schema = op.responses[String(status)]?.content?.['text/event-stream']?.schema;
    if (!schema) throw new Error(`${method} ${template} → ${status}: no text/event-stream schema documented`);
    const validate = this.ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/')));
    if (!validate(data)) throw new Error(`${method} ${template} → ${status}: event data does not match the document: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(data)}`);
  }
}

/** client() whose every answer is checked against the document. */
export function checkedClient(baseUrl: string, checker: ResponseChecker, key?: string) {
  const api = client(baseUrl, key);
  const call = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
    const res = await api.call(method, path, body, headers);
    checker.check(method, path, res);
    return res;
  };
  return withVerbs(call);
}
