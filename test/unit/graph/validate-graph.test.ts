import { describe, expect, it } from 'vitest';
import { TRIGGER_TYPES, defaultGraph, validateGraph } from '../../../src/graph/index.ts';
import { action, condition, edge, expectOnlyIssue, expectValid, issuesOf, trigger } from './fixtures.ts';
import type { Json } from './fixtures.ts';

const emoji = '😀';

describe('validateGraph: a valid graph', () => {
  it('accepts a realistic graph and returns it with UI keys preserved', () => {
    const input = {
      nodes: [
        { ...trigger(), position: { x: 0, y: 0 } },
        condition('c1', { match: 'any', conditions: [{ field: 'ticket.priority', operator: 'in', value: ['high', 'urgent'] }, { field: 'ticket.subject', operator: 'matches', value: '^urgent', caseSensitive: false }], label: 'Hot?' }),
        action('a1', { actionType: 'assign_ticket', assignTo: 'ai' }),
        action('a2', { actionType: 'send_reply', body: 'Hi {{ ticket.customerName }}, we are on it.', bodyHtml: '<p>Hi</p>' }),
        action('w1', { actionType: 'wait_for_reply', timeoutSeconds: 86400 }),
        action('a3', { actionType: 'set_status', status: 'solved' }),
        action('a4', { actionType: 'http_request', method: 'POST', url: 'https://hooks.example.com/x?t={{ticket.id}}', headers: { 'X-Trace': '{{ ticket.id }}' }, body: { email: '{{ticket.customerEmail}}', n: [1, { deep: '{{data.x}}' }] } }),
      ],
      edges: [
        { ...edge('trigger', 'c1'), id: 'e1' },
        edge('c1', 'a1', 'true'),
        edge('c1', 'a2', 'false'),
        edge('a1', 'w1'),
        edge('a2', 'w1'),
        edge('w1', 'a3', 'false'),
        edge('w1', 'a4'),
      ],
      viewport: { zoom: 1 },
    };
    const graph = expectValid(input);
    expect(graph).toBe(input);
    expect(graph.nodes[0].position).toEqual({ x: 0, y: 0 });
  });

  it('accepts the default graph of every trigger type', () => {
    for (const t of TRIGGER_TYPES) {
      expect(defaultGraph(t)).toEqual({ nodes: [{ id: 'trigger', type: 'trigger', data: { triggerType: t } }], edges: [] });
      expectValid(defaultGraph(t), t);
    }
  });
});

describe('validateGraph: top level', () => {
  it('must be an object', () => {
    for (const input of [null, [], 'x', 3]) expectOnlyIssue(input, 'workflowJson', /must be an object with "nodes" and "edges"/);
  });
  it('needs nodes and edges lists', () => {
    const issues = issuesOf({ nodes: {} });
    expect(issues.map((i) => i.path)).toEqual(['workflowJson.nodes', 'workflowJson.edges']);
  });
  it('rejects unknown top-level keys but allows viewport', () => {
    expectOnlyIssue({ nodes: [trigger()], edges: [], extra: 1 }, 'workflowJson.extra', /unknown key "extra"/);
    expectValid({ nodes: [trigger()], edges: [], viewport: { x: 1 } });
  });
});

describe('validateGraph: size limits', () => {
  function chain(n: number): { nodes: Json[]; edges: Json[] } {
    const nodes: Json[] = [trigger()];
    const edges: Json[] = [];
    for (let k = 1; k < n; k += 1) {
      nodes.push(action(`a${k}`));
      edges.push(edge(k === 1 ? 'trigger' : `a${k - 1}`, `a${k}`));
    }
    return { nodes, edges };
  }
  it('accepts 200 nodes and refuses 201', () => {
    expectValid(chain(200));
    expectOnlyIssue(chain(201), 'workflowJson.nodes', /at most 200 nodes; this one has 201/);
  });
  it('accepts 500 edges and refuses 501', () => {
    const g = chain(60); // 59 chain edges
    const ids = g.nodes.map((n) => String(n.id));
    for (let i = 0; i < ids.length && g.edges.length < 500; i += 1) {
      for (let j = i + 2; j < ids.length && g.edges.length < 500; j += 1) g.edges.push(edge(ids[i], ids[j]));
    }
    expect(g.edges).toHaveLength(500);
    expectValid(g);
    g.edges.push(edge('a1', 'a3'));
    expectOnlyIssue(g, 'workflowJson.edges', /at most 500 edges; this one has 501/);
  });
});

describe('validateGraph: nodes', () => {
  it('node must be an object', () => {
    expectOnlyIssue({ nodes: [trigger(), 'x'], edges: [] }, 'workflowJson.nodes[1]', /nodes\[1\] must be an object/);
  });
  it('id must be a non-empty string', () => {
    expectOnlyIssue({ nodes: [trigger(), action('')], edges: [] }, 'workflowJson.nodes[1].id', /nodes\[1\]: id must be a non-empty string/);
    expectOnlyIssue({ nodes: [trigger(), { ...action('x'), id: 7 }], edges: [] }, 'workflowJson.nodes[1].id', /got 7/);
  });
  it('id is at most 100 code points', () => {
    expectValid({ nodes: [trigger(), action(emoji.repeat(100))], edges: [edge('trigger', emoji.repeat(100))] });
    expectOnlyIssue({ nodes: [trigger(), action(emoji.repeat(101))], edges: [] }, 'workflowJson.nodes[1].id', /at most 100 characters/);
  });
  it('ids are unique', () => {
    const issue = expectOnlyIssue(
      { nodes: [trigger(), action('a1'), action('a1')], edges: [edge('trigger', 'a1')] },
      'workflowJson.nodes[2].id',
      /node "a1": duplicate id \(already used by nodes\[1\]\)/,
    );
    expect(issue.message).toContain('"a1"');
  });
  it('rejects an unknown node type', () => {
    expectOnlyIssue({ nodes: [trigger(), { id: 'x1', type: 'loop', data: {} }], edges: [edge('trigger', 'x1')] }, 'workflowJson.nodes[1].type', /node "x1": unknown type "loop"/);
  });
  it('data must be an object', () => {
    expectOnlyIssue({ nodes: [trigger(), { id: 'a1', type: 'action', data: [] }], edges: [edge('trigger', 'a1')] }, 'workflowJson.nodes[1].data', /node "a1": data must be an object/);
    expectOnlyIssue({ nodes: [trigger(), { id: 'a1', type: 'action' }], edges: [edge('trigger', 'a1')] }, 'workflowJson.nodes[1].data', /node "a1": data must be an object/);
  });
});

describe('validateGraph: trigger rules', () => {
  it('needs a trigger node', () => {
    expectOnlyIssue({ nodes: [], edges: [] }, 'workflowJson.nodes', /exactly one trigger node; it has none/);
  });
  it('allows only one trigger node', () => {
    const issues = issuesOf({ nodes: [trigger(), trigger('t2')], edges: [] });
    expect(issues).toEqual([{ path: 'workflowJson.nodes[1].type', message: expect.stringMatching(/node "t2": a second trigger node .*"trigger"/) }]);
  });
  it("trigger type must equal the workflow's", () => {
    expectOnlyIssue({ nodes: [trigger()], edges: [] }, 'workflowJson.nodes[0].data.triggerType', /node "trigger": triggerType "ticket_created" does not match the workflow's triggerType "manual"/, 'manual');
  });
  it('no edge may enter the trigger', () => {
    expectOnlyIssue({ nodes: [trigger(), action('a1')], edges: [edge('trigger', 'a1'), edge('a1', 'trigger')] }, 'workflowJson.edges[1].target', /edge 1 \(a1 → trigger\): the trigger node "trigger" cannot have incoming edges/);
  });
});

describe('validateGraph: edges', () => {
  const base = (edges: unknown[], extraNodes: Json[] = []): Json => ({ nodes: [trigger(), condition('c1'), action('a1'), ...extraNodes], edges: [edge('trigger', 'c1'), edge('c1', 'a1'), ...edges] });

  it('edge must be an object', () => {
    expectOnlyIssue(base([null]), 'workflowJson.edges[2]', /edge 2 must be an object/);
  });
  it('target must exist', () => {
    expectOnlyIssue(base([edge('c1', 'a9')]), 'workflowJson.edges[2].target', /^edge 2 \(c1 → a9\): target "a9" is not a node$/);
  });
  it('source must exist', () => {
    expectOnlyIssue(base([edge('zz', 'a1')]), 'workflowJson.edges[2].source', /edge 2 \(zz → a1\): source "zz" is not a node/);
  });
  it('source and target must be strings', () => {
    expectOnlyIssue(base([{ source: 'c1', target: 5 }]), 'workflowJson.edges[2].target', /edge 2 \(c1 → \?\): target must be a node id, got 5/);
  });
  it('rejects a self-loop', () => {
    expectOnlyIssue(base([edge('a1', 'a1')]), 'workflowJson.edges[2]', /edge 2 \(a1 → a1\): an edge cannot connect a node to itself/);
  });
  it('rejects a duplicate edge (unlabelled counts as "true" out of a condition)', () => {
    expectOnlyIssue(base([edge('c1', 'a1')]), 'workflowJson.edges[2]', /edge 2 \(c1 → a1\): duplicates edge 1/);
    expectOnlyIssue(base([edge('c1', 'a1', 'true')]), 'workflowJson.edges[2]', /duplicates edge 1/);
    expectValid(base([edge('c1', 'a1', 'false')]));
  });
  it('label must be "true" or "false"', () => {
    expectOnlyIssue(base([edge('c1', 'a2', 'yes')], [action('a2')]), 'workflowJson.edges[2].label', /edge 2 \(c1 → a2\): label must be "true" or "false", got "yes"/);
    expectOnlyIssue(base([{ source: 'c1', target: 'a2', label: true }], [action('a2')]), 'workflowJson.edges[2].label', /got true/);
  });
  it('label only on edges leaving a condition or wait_for_reply', () => {
    expectOnlyIssue(base([edge('a1', 'a2', 'true')], [action('a2')]), 'workflowJson.edges[2].label', /edge 2 \(a1 → a2\): a label is only allowed .* "a1" is an action node/);
    expectOnlyIssue({ nodes: [trigger(), action('a1')], edges: [edge('trigger', 'a1', 'false')] }, 'workflowJson.edges[0].label', /"trigger" is a trigger node/);
    expectValid(base([edge('a1', 'w1'), edge('w1', 'a2', 'false')], [action('w1', { actionType: 'wait_for_reply', timeoutSeconds: 60 }), action('a2')]));
  });
  it('rejects unknown edge keys and checks edge ids', () => {
    expectOnlyIssue(base([{ ...edge('c1', 'a2'), lable: 'false' }], [action('a2')]), 'workflowJson.edges[2].lable', /edge 2 \(c1 → a2\): unknown key "lable"/);
    expectOnlyIssue(base([{ ...edge('c1', 'a2'), id: '' }], [action('a2')]), 'workflowJson.edges[2].id', /edge 2 \(c1 → a2\): id must be a string/);
    expectOnlyIssue(
      { nodes: [trigger(), action('a1'), action('a2')], edges: [{ ...edge('trigger', 'a1'), id: 'e' }, { ...edge('trigger', 'a2'), id: 'e' }] },
      'workflowJson.edges[1].id',
      /duplicate edge id "e"/,
    );
  });
});

describe('validateGraph: topology', () => {
  it('rejects a cycle and names the nodes on it', () => {
    const input = { nodes: [trigger(), action('a1'), action('a2'), action('a3')], edges: [edge('trigger', 'a1'), edge('a1', 'a2'), edge('a2', 'a3'), edge('a3', 'a1')] };
    expectOnlyIssue(input, 'workflowJson.edges[3]', /edge 3 \(a3 → a1\): closes a cycle \(a1 → a2 → a3 → a1\)/);
  });
  it('names every unreachable node', () => {
    const input = { nodes: [trigger(), action('a1'), action('lost1'), action('lost2')], edges: [edge('trigger', 'a1'), edge('lost1', 'lost2')] };
    const issues = issuesOf(input);
    expect(issues).toEqual([
      { path: 'workflowJson.nodes[2]', message: 'node "lost1" is not reachable from the trigger node "trigger"' },
      { path: 'workflowJson.nodes[3]', message: 'node "lost2" is not reachable from the trigger node "trigger"' },
    ]);
  });
  it('an unreachable cycle reports both the cycle and the unreachable nodes', () => {
    const input = { nodes: [trigger(), action('x'), action('y')], edges: [edge('x', 'y'), edge('y', 'x')] };
    const paths = issuesOf(input).map((i) => i.path);
    expect(paths).toEqual(['workflowJson.edges[1]', 'workflowJson.nodes[1]', 'workflowJson.nodes[2]']);
  });
});

describe('validateGraph: reporting', () => {
  it('reports all issues, not only the first', () => {
    const input = { nodes: [trigger(), condition('c1', { field: 'nope', operator: 'foo' }), action('a1', { actionType: 'set_status', status: 'done' })], edges: [edge('trigger', 'c1'), edge('c1', 'a1'), edge('a1', 'a9')] };
    const paths = issuesOf(input).map((i) => i.path);
    expect(paths).toEqual([
      'workflowJson.nodes[1].data.operator',
      'workflowJson.nodes[1].data.field',
      'workflowJson.nodes[2].data.status',
      'workflowJson.edges[2].target',
    ]);
  });
  it('caps the list at 50 issues plus a closing note', () => {
    const nodes: Json[] = [trigger()];
    for (let k = 0; k < 80; k += 1) nodes.push(action(`a${k}`, { actionType: 'set_status', status: 'bad' }));
    const edges = nodes.slice(1).map((n) => edge('trigger', String(n.id)));
    const issues = issuesOf({ nodes, edges });
    expect(issues).toHaveLength(51);
    expect(issues[50]).toEqual({ path: 'workflowJson', message: expect.stringMatching(/30 more issue\(s\) not shown/) });
  });
  it('never throws on hostile input', () => {
    const inputs: unknown[] = [
      { nodes: [null, 1, 'x', [], { id: {}, type: {}, data: 'x' }], edges: [1, 'x', [], { source: {}, target: [] }] },
      JSON.parse('{"nodes":[{"id":"__proto__","type":"trigger","data":{"triggerType":"ticket_created","__proto__":{"x":1}}}],"edges":[]}'),
      { nodes: [trigger(), condition('c1', nestedGroups(2000))], edges: [edge('trigger', 'c1')] },
    ];
    for (const input of inputs) expect(validateGraph(input, 'ticket_created').ok).toBe(false);
  });
});

function nestedGroups(depth: number): Json {
  let cond: Json = { field: 'ticket.status', operator: 'equals', value: 'open' };
  for (let k = 0; k < depth; k += 1) cond = { match: 'all', conditions: [cond] };
  return cond;
}
