// docs/contract.md §4: workflowJson is validated on create and on update; a broken graph is a 400
// validation_failed whose details name the node or edge. One case per rule, each sent both
// ways (POST and PATCH), plus a complex valid graph that must be accepted as written.
import { describe, expect, it } from 'vitest';
import { type ApiResponse, client, createWorkspace, useTestApp, useWorkspace } from '../helpers/app.ts';
import { expectError } from '../helpers/expect.ts';
import { actionNode, conditionNode, edge, graphWith, type Json, paths, triggerNode } from '../helpers/graphs.ts';
import { createWorkflow, expectStatus, getWorkflow, uniqueName } from '../helpers/api.ts';

const app = useTestApp();
const { api } = useWorkspace(app);

type Detail = { path: string; message: string };

/**
 * A 400 validation_failed with a detail whose path is (or is inside) `path` and whose message
 * matches every pattern: the node or edge it names, and what is wrong with it.
 */
function expectGraphIssue(res: ApiResponse, path: string, ...patterns: RegExp[]): void {
  expectError(res, 400, 'validation_failed');
  const details: Detail[] = res.body.error.details;
  const shown = JSON.stringify(details, null, 1);
  const match = details.find(
    (d) => (d.path === path || d.path.startsWith(`${path}.`) || d.path.startsWith(`${path}[`)) && patterns.every((p) => p.test(d.message)),
  );
  expect(match, `no detail at ${path} matching ${patterns.join(' and ')} in ${shown}`).toBeDefined();
}

type Case = {
  rule: string;
  graph: Json;
  triggerType?: string;
  /** Path of the detail (rooted at workflowJson) and what its message must say. */
  path: string;
  patterns: RegExp[];
};

const cases: Case[] = [
  {
    rule: 'duplicate node ids',
    graph: {
      nodes: [triggerNode(), actionNode('tag-it'), actionNode('tag-it', { actionType: 'set_priority', priority: 'high' })],
      edges: [edge('trigger', 'tag-it')],
    },
    path: 'workflowJson.nodes[2].id',
    patterns: [/tag-it/, /duplicate/i],
  },
  {
    rule: 'an edge to a missing node',
    graph: { nodes: [triggerNode(), actionNode('tag-it')], edges: [edge('trigger', 'tag-it'), edge('tag-it', 'ghost')] },
    path: 'workflowJson.edges[1]',
    patterns: [/ghost/, /not a node|missing|unknown|does not exist/i],
  },
  {
    rule: 'an edge from a missing node',
    graph: { nodes: [triggerNode(), actionNode('tag-it')], edges: [edge('trigger', 'tag-it'), edge('phantom', 'tag-it')] },
    path: 'workflowJson.edges[1]',
    patterns: [/phantom/],
  },
  {
    rule: 'no trigger node',
    graph: { nodes: [actionNode('tag-it')], edges: [] },
    path: 'workflowJson.nodes',
    patterns: [/trigger/i],
  },
  {
    rule: 'two trigger nodes',
    graph: {
      nodes: [triggerNode(), triggerNode('ticket_created', 'second-trigger'), actionNode('tag-it')],
      edges: [edge('trigger', 'tag-it'), edge('second-trigger', 'tag-it')],
    },
    path: 'workflowJson.nodes[1]',
    patterns: [/second-trigger/, /trigger/i],
  },
  {
    rule: "a trigger whose triggerType differs from the workflow's",
    graph: { nodes: [triggerNode('ticket_updated')], edges: [] },
    triggerType: 'ticket_created',
    path: 'workflowJson.nodes[0].data.triggerType',
    patterns: [/ticket_updated/, /ticket_created/],
  },
  {
    rule: 'a trigger of an unknown triggerType',
    graph: { nodes: [triggerNode('ticket_exploded')], edges: [] },
    path: 'workflowJson.nodes[0].data.triggerType',
    patterns: [/ticket_exploded/],
  },
  {
    rule: 'a schedule whose cron Temporal would refuse (an uppercase macro)',
    graph: { nodes: [triggerNode('scheduled', 'nightly', { cron: '@DAILY' })], edges: [] },
    triggerType: 'scheduled',
    path: 'workflowJson.nodes[0].data.cron',
    patterns: [/nightly/, /@DAILY/, /lowercase/],
  },
  {
    rule: 'an unknown node type',
    graph: { nodes: [triggerNode(), { id: 'looper', type: 'loop', data: {} }], edges: [edge('trigger', 'looper')] },
    path: 'workflowJson.nodes[1].type',
    patterns: [/looper/, /loop/],
  },
  {
    rule: 'an unknown operator',
    graph: graphWith(conditionNode('check', { field: 'ticket.subject', operator: 'resembles', value: 'refund' })),
    path: 'workflowJson.nodes[1].data.operator',
    patterns: [/check/, /resembles/],
  },
  {
    rule: 'an unknown operator inside a condition group',
    graph: graphWith(
      conditionNode('grouped', {
        match: 'all',
        conditions: [
          { field: 'ticket.status', operator: 'equals', value: 'open' },
          { field: 'ticket.priority', operator: 'approximately', value: 'high' },
        ],
      }),
    ),
    path: 'workflowJson.nodes[1].data.conditions[1].operator',
    patterns: [/grouped/, /approximately/],
  },
  {
    rule: 'an unknown actionType',
    graph: graphWith(actionNode('rocket', { actionType: 'launch_rocket' })),
    path: 'workflowJson.nodes[1].data.actionType',
    patterns: [/rocket/, /launch_rocket/],
  },
  {
    rule: 'set_status with a status that does not exist',
    graph: graphWith(actionNode('archive', { actionType: 'set_status', status: 'archived' })),
    path: 'workflowJson.nodes[1].data.status',
    patterns: [/archive/, /archived/],
  },
  {
    rule: 'set_status with a status of the wrong type',
    graph: graphWith(actionNode('close-it', { actionType: 'set_status', status: 5 })),
    path: 'workflowJson.nodes[1].data.status',
    patterns: [/close-it/],
  },
  {
    rule: 'assign_ticket without assignTo',
    graph: graphWith(actionNode('assign', { actionType: 'assign_ticket' })),
    path: 'workflowJson.nodes[1].data.assignTo',
    patterns: [/assign/, /assignTo/],
  },
  {
    rule: 'assign_ticket with a blank assignTo',
    graph: graphWith(actionNode('assign', { actionType: 'assign_ticket', assignTo: '   ' })),
    path: 'workflowJson.nodes[1].data.assignTo',
    patterns: [/assign/],
  },
  {
    rule: 'send_reply with an empty body',
    graph: graphWith(actionNode('reply', { actionType: 'send_reply', body: '' })),
    path: 'workflowJson.nodes[1].data.body',
    patterns: [/reply/, /body/],
  },
  {
    rule: 'send_reply without a body',
    graph: graphWith(actionNode('reply', { actionType: 'send_reply', bodyHtml: '<p>hi</p>' })),
    path: 'workflowJson.nodes[1].data.body',
    patterns: [/reply/, /body/],
  },
  {
    rule: 'set_priority with an unknown priority',
    graph: graphWith(actionNode('bump', { actionType: 'set_priority', priority: 'critical' })),
    path: 'workflowJson.nodes[1].data.priority',
    patterns: [/bump/, /critical/],
  },
  {
    rule: 'http_request without a url',
    graph: graphWith(actionNode('notify', { actionType: 'http_request', method: 'POST' })),
    path: 'workflowJson.nodes[1].data.url',
    patterns: [/notify/, /url/],
  },
  {
    rule: 'delay with a negative number of seconds',
    graph: graphWith(actionNode('later', { actionType: 'delay', seconds: -5 })),
    path: 'workflowJson.nodes[1].data.seconds',
    patterns: [/later/],
  },
  {
    rule: 'a cycle',
    graph: {
      nodes: [triggerNode(), actionNode('first'), actionNode('second', { actionType: 'set_priority', priority: 'high' })],
      edges: [edge('trigger', 'first'), edge('first', 'second'), edge('second', 'first')],
    },
    path: 'workflowJson.edges[2]',
    patterns: [/second/, /first/, /cycle|loop/i],
  },
  {
    rule: 'an edge from a node to itself',
    graph: { nodes: [triggerNode(), actionNode('selfish')], edges: [edge('trigger', 'selfish'), edge('selfish', 'selfish')] },
    path: 'workflowJson.edges[1]',
    patterns: [/selfish/],
  },
  {
    rule: 'a node unreachable from the trigger',
    graph: { nodes: [triggerNode(), actionNode('tag-it'), actionNode('island')], edges: [edge('trigger', 'tag-it')] },
    path: 'workflowJson.nodes[2]',
    patterns: [/island/, /reach/i],
  },
  {
    rule: 'a "matches" pattern that RE2 does not support',
    graph: graphWith(conditionNode('regex', { field: 'ticket.subject', operator: 'matches', value: '(?<=re: )refund' })),
    path: 'workflowJson.nodes[1].data.value',
    patterns: [/regex/, /lookbehind is not supported/],
  },
  {
    rule: 'a "matches" pattern that is not a regular expression',
    graph: graphWith(conditionNode('regex', { field: 'ticket.subject', operator: 'matches', value: '([a-z' })),
    path: 'workflowJson.nodes[1].data.value',
    patterns: [/regex/],
  },
  {
    rule: 'a condition without a field',
    graph: graphWith(conditionNode('fieldless', { operator: 'equals', value: 'open' })),
    path: 'workflowJson.nodes[1].data.field',
    patterns: [/fieldless/],
  },
  {
    rule: 'an edge label other than true or false',
    graph: {
      nodes: [triggerNode(), conditionNode('check'), actionNode('tag-it')],
      edges: [edge('trigger', 'check'), { source: 'check', target: 'tag-it', label: 'maybe' }],
    },
    path: 'workflowJson.edges[1].label',
    patterns: [/maybe/],
  },
  {
    rule: 'nodes that is not a list',
    graph: { nodes: { trigger: triggerNode() }, edges: [] },
    path: 'workflowJson.nodes',
    patterns: [/nodes/],
  },
  {
    rule: 'edges that is missing',
    graph: { nodes: [triggerNode()] },
    path: 'workflowJson.edges',
    patterns: [/edges/],
  },
];

describe('workflowJson validation on POST /api/workflows', () => {
  it.each(cases)('refuses $rule with 400 naming it', async ({ graph, triggerType, path, patterns }) => {
    const res = await api.post('/api/workflows', { name: uniqueName(), triggerType: triggerType ?? 'ticket_created', workflowJson: graph });
    expectGraphIssue(res, path, ...patterns);
  });

  it('reports every broken node of one graph at once', async () => {
    const graph = {
      nodes: [
        triggerNode(),
        actionNode('bad-status', { actionType: 'set_status', status: 'archived' }),
        actionNode('bad-assign', { actionType: 'assign_ticket' }),
      ],
      edges: [edge('trigger', 'bad-status'), edge('trigger', 'bad-assign')],
    };
    const res = await api.post('/api/workflows', { name: uniqueName(), workflowJson: graph });
    expectGraphIssue(res, 'workflowJson.nodes[1].data.status', /bad-status/);
    expectGraphIssue(res, 'workflowJson.nodes[2].data.assignTo', /bad-assign/);
  });

  it('creates nothing when the graph is refused', async () => {
    const own = client(app.baseUrl, (await createWorkspace(app.orm)).key);
    const res = await own.post('/api/workflows', { name: uniqueName(), workflowJson: cases[0].graph });
    expectError(res, 400, 'validation_failed');
    expect((await own.get('/api/workflows')).body.workflows).toEqual([]);
  });
});

describe('workflowJson validation on PATCH /api/workflows/:id', () => {
  it.each(cases)('refuses $rule with 400 naming it', async ({ graph, triggerType, path, patterns }) => {
    const created = await createWorkflow(api, { triggerType: triggerType ?? 'ticket_created' });
    const res = await api.patch(`/api/workflows/${created.id}`, { workflowJson: graph });
    expectGraphIssue(res, path, ...patterns);
  });

  it('checks the graph against the triggerType sent with it', async () => {
    const created = await createWorkflow(api, { triggerType: 'ticket_created' });
    const mismatched = await api.patch(`/api/workflows/${created.id}`, { triggerType: 'manual', workflowJson: graphWith(actionNode('a')) });
    expectGraphIssue(mismatched, 'workflowJson.nodes[0].data.triggerType', /ticket_created/, /manual/);
    const matched = await api.patch(`/api/workflows/${created.id}`, { triggerType: 'manual', workflowJson: graphWith(actionNode('a'), 'manual') });
    expectStatus(matched, 200);
  });
});

/**
 * Every action type with valid parameters, condition groups (all/any, nested), true and
 * false branches, fan-out from the trigger and a join of several branches into one node.
 */
const complexGraph = (): Json => ({
  nodes: [
    { id: 'start', type: 'trigger', data: { triggerType: 'ticket_created', label: 'New ticket' }, position: { x: 0, y: 0 } },
    {
      id: 'is-urgent-vip',
      type: 'condition',
      data: {
        label: 'Urgent VIP?',
        match: 'all',
        conditions: [
          { field: 'ticket.priority', operator: 'in', value: ['high', 'urgent'] },
          {
            match: 'any',
            conditions: [
              { field: 'ticket.customerEmail', operator: 'ends_with', value: '@vip.example.com' },
              { field: 'ticket.tags', operator: 'contains', value: 'vip' },
              { field: 'ticket.subject', operator: 'matches', value: '^(refund|chargeback)\\b' },
            ],
          },
        ],
      },
    },
    { id: 'has-subject', type: 'condition', data: { field: 'ticket.subject', operator: 'is_not_empty' } },
    { id: 'assign', type: 'action', data: { actionType: 'assign_ticket', assignTo: 'agent-7' } },
    { id: 'escalate', type: 'action', data: { actionType: 'set_status', status: 'escalated' } },
    { id: 'bump', type: 'action', data: { actionType: 'set_priority', priority: 'urgent' } },
    { id: 'tag-vip', type: 'action', data: { actionType: 'add_tag', tag: 'vip' } },
    { id: 'untag-new', type: 'action', data: { actionType: 'remove_tag', tag: 'new' } },
    { id: 'resolution', type: 'action', data: { actionType: 'set_resolution_type', resolutionType: 'resolved_by_automation' } },
    {
      id: 'reply',
      type: 'action',
      data: { actionType: 'send_reply', body: 'Hello {{ticket.customerName}}, we are on it.', bodyHtml: '<p>Hello {{ticket.customerName}}</p>' },
    },
    {
      id: 'notify',
      type: 'action',
      data: {
        actionType: 'http_request',
        method: 'POST',
        url: 'https://hooks.example.com/tickets/{{ticket.id}}',
        headers: { 'X-Source': 'deskflow' },
        body: { ticket: '{{ticket.id}}', subject: '{{ticket.subject}}' },
      },
    },
    { id: 'pause', type: 'action', data: { actionType: 'delay', seconds: 3600 } },
    { id: 'until', type: 'action', data: { actionType: 'delay', until: '2030-01-31T09:00:00Z' } },
    { id: 'await-reply', type: 'action', data: { actionType: 'wait_for_reply', timeoutSeconds: 86400 } },
    { id: 'replied', type: 'action', data: { actionType: 'set_status', status: 'open' } },
    { id: 'silent', type: 'action', data: { actionType: 'set_status', status: 'solved' } },
  ],
  edges: [
    // fan-out from the trigger; the true branch fans out again, the false branch goes elsewhere
    ...paths('start > is-urgent-vip, start > has-subject, is-urgent-vip >true assign, is-urgent-vip >true escalate, is-urgent-vip >false tag-vip, has-subject > bump'),
    // join: three branches meet at reply
    ...paths('assign > reply, escalate > reply'),
    { source: 'bump', target: 'reply', id: 'bump-to-reply' },
    ...paths('tag-vip > untag-new > resolution, reply > notify > pause > until > await-reply >true replied, await-reply >false silent'),
  ],
  viewport: { x: 10, y: 20, zoom: 1.5 },
});

describe('a valid complex graph', () => {
  it('is accepted on create and read back exactly as written', async () => {
    const graph = complexGraph();
    const res = await api.post('/api/workflows', { name: uniqueName(), workflowJson: graph });
    expectStatus(res, 201);
    expect(res.body.workflow.version).toBe(1);
    expect((await getWorkflow(api, res.body.workflow.id)).workflowJson).toEqual(graph);
  });

  it('is accepted on update, as the next version', async () => {
    const created = await createWorkflow(api);
    const updated = await api.patch(`/api/workflows/${created.id}`, { workflowJson: complexGraph() });
    expectStatus(updated, 200);
    expect(updated.body.workflow).toMatchObject({ version: 2, workflowJson: complexGraph() });
  });

  it.each([
    ['scheduled', { cron: '0 9 * * 1-5', timezone: 'Europe/Paris', ticketFilter: { status: ['pending'], idleForSeconds: 86400 } }],
    ['scheduled', { intervalSeconds: 300, ticketFilter: { tagsAny: ['vip'] } }],
    ['manual', {}],
    ['webhook', {}],
    ['message_received', {}],
  ])('accepts a %s trigger with data %j', async (triggerType, extra) => {
    const graph = { nodes: [triggerNode(triggerType, 'trigger', extra), actionNode('tag-it')], edges: [edge('trigger', 'tag-it')] };
    const res = await api.post('/api/workflows', { name: uniqueName(), triggerType, workflowJson: graph });
    expectStatus(res, 201);
    expect((await getWorkflow(api, res.body.workflow.id)).workflowJson).toEqual(graph);
  });

  it('accepts every operator with a value of its kind', async () => {
    const leaves = [
      { field: 'ticket.status', operator: 'equals', value: 'open' },
      { field: 'ticket.status', operator: 'not_equals', value: 'closed', caseSensitive: true },
      { field: 'ticket.subject', operator: 'contains', value: 'refund' },
      { field: 'ticket.subject', operator: 'not_contains', value: 'spam' },
      { field: 'ticket.subject', operator: 'starts_with', value: 're:' },
      { field: 'ticket.customerEmail', operator: 'ends_with', value: '.com' },
      { field: 'ticket.priority', operator: 'in', value: ['high', 'urgent'] },
      { field: 'ticket.priority', operator: 'not_in', value: ['low'] },
      { field: 'data.amount', operator: 'greater_than', value: 100 },
      { field: 'data.amount', operator: 'greater_or_equal', value: 100 },
      { field: 'ticket.createdAt', operator: 'less_than', value: '2030-01-01T00:00:00Z' },
      { field: 'data.amount', operator: 'less_or_equal', value: 5.5 },
      { field: 'ticket.assignedTo', operator: 'is_empty' },
      { field: 'ticket.customerName', operator: 'is_not_empty' },
      { field: 'ticket.subject', operator: 'matches', value: '^order #[0-9]+$' },
      { field: 'status', operator: 'changed' },
      { field: 'status', operator: 'changed_to', value: 'solved' },
      { field: 'priority', operator: 'changed_from', value: 'low' },
    ];
    const graph = graphWith(conditionNode('every-operator', { match: 'any', conditions: leaves }), 'ticket_updated');
    const res = await api.post('/api/workflows', { name: uniqueName(), triggerType: 'ticket_updated', workflowJson: graph });
    expectStatus(res, 201);
  });
});
