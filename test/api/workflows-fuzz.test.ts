// Property-based: random bodies and random workflowJson shapes sent to the workflows
// interface never produce a 5xx; a 4xx always carries the JSON error shape of docs/contract.md §1,
// and a success carries exactly the documented fields.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, sendJson, useTestApp, useWorkspace } from '../helpers/app.ts';
import { expectErrorShape, keysOf } from '../helpers/expect.ts';
import { CREATED_WORKFLOW_FIELDS, EXECUTION_FIELDS, TRIGGER_TYPES, WEBHOOK_WORKFLOW_FIELDS, WORKFLOW_FIELDS, WORKFLOW_LIST_ITEM_FIELDS } from '../helpers/workflows.ts';
import { createTicket, createWorkflow, expectStatus, uniqueName } from '../helpers/api.ts';
import { actionNode, conditionNode, edge, simpleGraph, triggerNode } from '../helpers/graphs.ts';

const NUM_RUNS = 100;

const app = useTestApp();
const { api } = useWorkspace(app, [{ userId: 'agent-1' }]);
let ticketId: string;
let workflowId: string;
let executionId: string;
beforeAll(async () => {
  ticketId = (await createTicket(api)).id;
  workflowId = (await createWorkflow(api, { workflowJson: simpleGraph() })).id;
  executionId = (await api.post(`/api/workflows/${workflowId}/trigger`, {})).body.execution.id;
});

/** Never a 5xx, always JSON; a 4xx carries the error shape; a success carries the documented fields. */
function expectWellFormed(res: ApiResponse, success: (body: any) => void): void {
  expect(res.status, JSON.stringify(res.body)?.slice(0, 500)).toBeLessThan(500);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  if (res.status >= 400) expectErrorShape(res.body);
  else success(res.body);
}

const expectWorkflow = (workflow: any) => expect(keysOf(workflow)).toEqual(workflow.triggerType === 'webhook' ? WEBHOOK_WORKFLOW_FIELDS : WORKFLOW_FIELDS);

/** Strings that probe edges: unicode, NUL and control characters, lone surrogates, long and blank text. */
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 250 }),
  fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '\ud800', '\udfff x', '😀'.repeat(201), 'x'.repeat(2_001), '__proto__', 'constructor', 'null', '{{ticket.id}}', '{{'),
);
const scalar = fc.oneof(text, fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, -0, Number.MAX_SAFE_INTEGER + 2));
const value = fc.oneof({ weight: 3, arbitrary: scalar }, fc.array(scalar, { maxLength: 3 }), fc.dictionary(text, scalar, { maxKeys: 3 }));

/** Node ids that collide often (so edges find their nodes), and sometimes are odd. */
const nodeId = fc.oneof({ weight: 6, arbitrary: fc.constantFrom('trigger', 'a', 'b', 'c', 'd') }, text, fc.constantFrom(null, 1, ''));
const triggerType = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...TRIGGER_TYPES) }, text, value);
const operator = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom('equals', 'not_equals', 'contains', 'in', 'greater_than', 'is_empty', 'matches', 'changed_to') },
  text,
);
const field = fc.oneof({ weight: 4, arbitrary: fc.constantFrom('ticket.status', 'ticket.subject', 'data.x', 'status', 'tag', 'message.body') }, text);
const leaf = fc.record(
  { field, operator, value: fc.oneof(value, fc.constantFrom('(a+)+$', '^a.*b$', '[', '(?<x>a)\\k<x>')), caseSensitive: fc.oneof(fc.boolean(), value) },
  { requiredKeys: [] },
);
const conditionData = fc.letrec<{ cond: unknown }>((tie) => ({
  cond: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.record({ match: fc.oneof(fc.constantFrom('all', 'any'), text), conditions: fc.array(tie('cond'), { maxLength: 3 }) }, { requiredKeys: [] }),
  ),
})).cond;
const actionData = fc.oneof(
  fc.record(
    {
      actionType: fc.oneof(
        {
          weight: 5,
          arbitrary: fc.constantFrom('assign_ticket', 'set_status', 'set_priority', 'set_resolution_type', 'add_tag', 'remove_tag', 'send_reply', 'http_request', 'delay', 'wait_for_reply'),
        },
        text,
      ),
      assignTo: fc.oneof(fc.constantFrom('agent-1', 'ai', '{{data.who}}'), text),
      status: fc.oneof(fc.constantFrom('open', 'solved', 'archived'), value),
      priority: fc.oneof(fc.constantFrom('low', 'urgent'), value),
      resolutionType: fc.oneof(fc.constantFrom('spam', 'duplicate'), value),
      tag: text,
      body: fc.oneof(text, value, fc.object({ maxDepth: 3 })),
      bodyHtml: text,
      method: fc.oneof(fc.constantFrom('GET', 'POST', 'post', 'TRACE'), value),
      url: fc.oneof(fc.constantFrom('https://example.com/x', 'http://127.0.0.1/', '{{data.url}}', 'ftp://x'), text),
      headers: fc.oneof(fc.dictionary(text, value, { maxKeys: 3 }), value),
      seconds: fc.oneof(fc.double(), value),
      until: fc.oneof(fc.constantFrom('2030-01-01T00:00:00Z', '2030-02-30T00:00:00Z', '99999-01-01T00:00:00Z'), text),
      timeoutSeconds: fc.oneof(fc.double(), value),
      label: text,
    },
    { requiredKeys: [] },
  ),
  fc.object({ maxDepth: 2 }),
);
const triggerData = fc.record(
  {
    triggerType,
    cron: fc.oneof(fc.constantFrom('0 9 * * 1-5', '*/5 * * * *', '61 * * * *', '* * *'), text),
    intervalSeconds: fc.oneof(fc.integer(), value),
    timezone: fc.oneof(fc.constantFrom('Europe/Paris', 'UTC', 'Mars/Olympus', '+02:00'), text),
    ticketFilter: fc.oneof(fc.record({ status: fc.array(text), priority: value, tagsAny: fc.array(text), idleForSeconds: value }, { requiredKeys: [] }), value),
    label: text,
  },
  { requiredKeys: ['triggerType'] },
);
const node = fc.oneof(
  fc.record({ id: nodeId, type: fc.constant('trigger'), data: triggerData }, { requiredKeys: [] }),
  fc.record({ id: nodeId, type: fc.constant('condition'), data: conditionData }, { requiredKeys: [] }),
  fc.record({ id: nodeId, type: fc.constant('action'), data: actionData }, { requiredKeys: [] }),
  fc.record({ id: nodeId, type: fc.oneof(text, value), data: value, position: value }, { requiredKeys: [] }),
  value,
);
const edgeArb = fc.oneof(
  { weight: 4, arbitrary: fc.record({ source: nodeId, target: nodeId, label: fc.oneof(fc.constantFrom('true', 'false'), value), id: value }, { requiredKeys: ['source', 'target'] }) },
  value,
);
/** Graph-like shapes most of the time; sometimes anything at all. */
const workflowJson = fc.oneof(
  { weight: 4, arbitrary: fc.record({ nodes: fc.array(node, { maxLength: 6 }), edges: fc.array(edgeArb, { maxLength: 8 }), viewport: value }, { requiredKeys: ['nodes', 'edges'] }) },
  { weight: 1, arbitrary: fc.record({ nodes: fc.oneof(fc.array(node, { maxLength: 3 }), value), edges: fc.oneof(fc.array(edgeArb, { maxLength: 3 }), value) }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: fc.object({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 3 }) },
);

/** Objects whose keys are mostly the fields of the endpoint, with plausible or hostile values. */
const objectWith = (fields: string[], plausible: Record<string, fc.Arbitrary<unknown>>) =>
  fc.dictionary(
    fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...fields) }, fc.constantFrom('__proto__', 'constructor', 'version', 'id', ''), fc.string()),
    fc.oneof(...Object.values(plausible), value),
    { maxKeys: 6 },
  );
/** Sometimes a valid base with a mutation, sometimes anything JSON can carry. */
const body = (base: Record<string, unknown>, fields: string[], plausible: Record<string, fc.Arbitrary<unknown>>) =>
  fc.oneof(
    { weight: 3, arbitrary: objectWith(fields, plausible).map((o) => ({ ...base, ...o })) },
    { weight: 2, arbitrary: objectWith(fields, plausible) },
    { weight: 1, arbitrary: fc.jsonValue() },
    { weight: 1, arbitrary: fc.anything() },
  );

const WORKFLOW_PLAUSIBLE = {
  name: fc.oneof(fc.string({ minLength: 1, maxLength: 200 }), text),
  description: fc.oneof(fc.string({ maxLength: 2_000 }), text),
  triggerType,
  workflowJson,
  isActive: fc.oneof(fc.boolean(), value),
};

describe('random request bodies never produce a 5xx', () => {
  it('POST /api/workflows', async () => {
    const fields = ['name', 'description', 'triggerType', 'workflowJson'];
    await fc.assert(
      fc.asyncProperty(body({ name: 'Fuzz' }, fields, WORKFLOW_PLAUSIBLE), async (payload) => {
        expectWellFormed(await sendJson(api, 'POST', '/api/workflows', payload), (b) => {
          expect(keysOf(b)).toEqual(['workflow']);
          expect(keysOf(b.workflow)).toEqual(CREATED_WORKFLOW_FIELDS);
        });
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('PATCH /api/workflows/:id', async () => {
    const fields = ['name', 'description', 'isActive', 'triggerType', 'workflowJson'];
    await fc.assert(
      fc.asyncProperty(body({}, fields, WORKFLOW_PLAUSIBLE), async (payload) => {
        expectWellFormed(await sendJson(api, 'PATCH', `/api/workflows/${workflowId}`, payload), (b) => {
          expect(keysOf(b)).toEqual(['workflow']);
          expectWorkflow(b.workflow);
        });
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('POST /api/workflows/:id/trigger', async () => {
    const plausible = {
      ticketId: fc.oneof(fc.constant(ticketId), fc.uuid(), text),
      data: fc.oneof(fc.object({ maxDepth: 3 }), fc.dictionary(text, value, { maxKeys: 4 }), value),
    };
    await fc.assert(
      fc.asyncProperty(body({}, ['ticketId', 'data'], plausible), async (payload) => {
        expectWellFormed(await sendJson(api, 'POST', `/api/workflows/${workflowId}/trigger`, payload), (b) => {
          expect(keysOf(b)).toEqual(['execution']);
          expect(keysOf(b.execution)).toEqual(EXECUTION_FIELDS);
        });
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('raw text sent as JSON to every write endpoint', async () => {
    const paths = [
      ['POST', '/api/workflows'],
      ['PATCH', `/api/workflows/${workflowId}`],
      ['POST', `/api/workflows/${workflowId}/trigger`],
    ] as const;
    const raw = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.json().map((j) => j.slice(0, -1)),
      fc.constantFrom('{', '{"name":}', '{"name":"\\ud800"}', '{"name":"x","workflowJson":{"nodes":[],"edges":[]},}', '\ufeff{}'),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), raw, async ([method, path], payload) => {
        expectWellFormed(await api.call(method, path, payload, { 'content-type': 'application/json' }), () => {});
      }),
      { numRuns: NUM_RUNS },
    );
  });
});

describe('random workflowJson shapes never produce a 5xx', () => {
  it('on create, for every trigger type', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...TRIGGER_TYPES), workflowJson, async (type, graph) => {
        const payload = { name: 'Graph fuzz', triggerType: type, workflowJson: graph };
        const res = await sendJson(api, 'POST', '/api/workflows', payload);
        expectWellFormed(res, (b) => expect(keysOf(b.workflow)).toEqual(CREATED_WORKFLOW_FIELDS));
        // A JSON object is never "invalid JSON".
        if (res.status === 400) expect(res.body.error.code).toBe('validation_failed');
      }),
      { numRuns: 2 * NUM_RUNS },
    );
  });

  it('on update, and a refused graph leaves the workflow as it was', async () => {
    const target = await createWorkflow(api, { workflowJson: simpleGraph() });
    await fc.assert(
      fc.asyncProperty(workflowJson, async (graph) => {
        const before = (await api.get(`/api/workflows/${target.id}`)).body.workflow;
        const res = await sendJson(api, 'PATCH', `/api/workflows/${target.id}`, { workflowJson: graph });
        expectWellFormed(res, (b) => expectWorkflow(b.workflow));
        if (res.status >= 400) expect((await api.get(`/api/workflows/${target.id}`)).body.workflow).toEqual(before);
      }),
      { numRuns: 2 * NUM_RUNS },
    );
  });

  it('fc.anything and fc.object as workflowJson', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.anything(), fc.object()), async (graph) => {
        expectWellFormed(await sendJson(api, 'POST', '/api/workflows', { name: 'Anything', workflowJson: graph }), () => {});
        expectWellFormed(await sendJson(api, 'PATCH', `/api/workflows/${workflowId}`, { workflowJson: graph }), () => {});
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('a graph that was accepted reads back as sent', async () => {
    await fc.assert(
      fc.asyncProperty(workflowJson, async (graph) => {
        const sent = JSON.parse(JSON.stringify({ name: uniqueName('Roundtrip'), workflowJson: graph }) ?? 'null');
        const res = await sendJson(api, 'POST', '/api/workflows', sent);
        expectWellFormed(res, () => {});
        if (res.status === 201 && sent.workflowJson !== undefined) {
          const read = await api.get(`/api/workflows/${res.body.workflow.id}`);
          expectStatus(read, 200);
          expect(read.body.workflow.workflowJson).toEqual(sent.workflowJson);
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });
});

describe('random query strings and ids never produce a 5xx', () => {
  const queryValue = fc.oneof(text, fc.integer().map(String), fc.constantFrom('true', 'false', '1', '50', '200', '201', '0', '', 'pending', 'manual'), fc.uuid());
  const query = (keys: string[]) =>
    fc
      .array(fc.tuple(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...keys) }, fc.string()), queryValue), { maxLength: 5 })
      .map((pairs) => new URLSearchParams(pairs).toString());

  it('GET /api/workflows', async () => {
    await fc.assert(
      fc.asyncProperty(query(['active', 'trigger_type']), async (qs) => {
        expectWellFormed(await api.get(`/api/workflows?${qs}`), (b) => {
          expect(keysOf(b)).toEqual(['workflows']);
          for (const w of b.workflows) expect(keysOf(w)).toEqual(WORKFLOW_LIST_ITEM_FIELDS);
        });
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('GET /api/workflows/:id/executions', async () => {
    const withCursor = query(['limit', 'status', 'before']).chain((qs) => fc.constantFrom(qs, `${qs}&before=${executionId}`));
    await fc.assert(
      fc.asyncProperty(withCursor, async (qs) => {
        expectWellFormed(await api.get(`/api/workflows/${workflowId}/executions?${qs}`), (b) => {
          expect(keysOf(b)).toEqual(['executions']);
          for (const e of b.executions) expect(keysOf(e)).toEqual(EXECUTION_FIELDS);
        });
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('random workflow and execution ids in the path', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ minLength: 1 }), fc.uuid()), async (id) => {
        const path = `/api/workflows/${encodeURIComponent(id)}`;
        expectWellFormed(await api.get(path), () => {});
        expectWellFormed(await api.get(`${path}/executions`), () => {});
        expectWellFormed(await sendJson(api, 'PATCH', path, { name: 'x' }), () => {});
        expectWellFormed(await sendJson(api, 'POST', `${path}/trigger`, {}), () => {});
        expectWellFormed(await api.post(`/api/workflows/${workflowId}/executions/${encodeURIComponent(id)}/cancel`), () => {});
      }),
      { numRuns: NUM_RUNS },
    );
  });
});

describe('text the database cannot store as sent', () => {
  // PostgreSQL text and jsonb cannot hold U+0000, and jsonb refuses a lone surrogate escape:
  // such input must be a 400 (or be stored faithfully), never a 500.
  const graphWithLabel = (label: string) => ({
    nodes: [triggerNode('ticket_created', 'trigger', { label }), actionNode('tag-it')],
    edges: [edge('trigger', 'tag-it')],
  });

  it.each([
    ['NUL', 'a\u0000b'],
    ['a lone surrogate', 'a\ud800b'],
  ])('a workflowJson label with %s', async (_what, label) => {
    const created = await sendJson(api, 'POST', '/api/workflows', { name: uniqueName(), workflowJson: graphWithLabel(label) });
    expectWellFormed(created, () => {});
    const patched = await sendJson(api, 'PATCH', `/api/workflows/${workflowId}`, { workflowJson: graphWithLabel(label) });
    expectWellFormed(patched, () => {});
  });

  it.each([
    ['NUL', 'a\u0000b'],
    ['a lone surrogate', 'a\ud800b'],
  ])('a condition value and a reply body with %s', async (_what, s) => {
    const graph = {
      nodes: [triggerNode(), conditionNode('check', { field: 'ticket.subject', operator: 'contains', value: s }), actionNode('reply', { actionType: 'send_reply', body: s })],
      edges: [edge('trigger', 'check'), edge('check', 'reply', 'true')],
    };
    expectWellFormed(await sendJson(api, 'POST', '/api/workflows', { name: uniqueName(), workflowJson: graph }), () => {});
  });

  it.each([
    ['NUL in a value', { note: 'a\u0000b' }],
    ['NUL in a key', { 'a\u0000b': 1 }],
    ['a lone surrogate', { note: '\udc00' }],
  ])('trigger data with %s', async (_what, data) => {
    expectWellFormed(await sendJson(api, 'POST', `/api/workflows/${workflowId}/trigger`, { data }), () => {});
  });

  it.each([
    ['NUL', 'a\u0000b'],
    ['a lone surrogate', 'a\ud800b'],
  ])('a name and description with %s', async (_what, s) => {
    expectWellFormed(await sendJson(api, 'POST', '/api/workflows', { name: s, description: s }), () => {});
  });
});
