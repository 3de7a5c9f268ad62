// Validation problems placed on the canvas (console/src/model/issues.ts), from the validator the server uses.
import { describe, expect, it } from 'vitest';
import { validateGraph } from '../../../src/graph/index.ts';
import { canvasToGraph, graphToCanvas } from '../../../console/src/model/canvas.ts';
import { fieldMessages, placeIssues, unplacedMessages } from '../../../console/src/model/issues.ts';

const graph = {
  nodes: [
    { id: 'start', type: 'trigger', data: { triggerType: 'ticket_created' } },
    { id: 'check', type: 'condition', data: { match: 'all', conditions: [{ field: 'ticket.subject', operator: 'in', value: 'urgent' }] } },
    { id: 'tag', type: 'action', data: { actionType: 'add_tag', tag: ' ' } },
  ],
  edges: [
    { source: 'start', target: 'check' },
    { source: 'check', target: 'tag', label: 'true' },
    { source: 'check', target: 'tag', label: 'true' },
  ],
};

describe('placeIssues', () => {
  const canvas = graphToCanvas(graph as never);
  const result = validateGraph(canvasToGraph(canvas), 'ticket_created');
  if (result.ok) throw new Error('the graph should be refused');
  const placed = placeIssues([...result.issues, { path: 'name', message: 'name must not be blank.' }], canvas);

  it('puts each node problem on its node and field', () => {
    expect(placed.nodes.get('tag')).toEqual([{ field: 'tag', message: 'node "tag": tag must not be blank' }]);
    expect(placed.nodes.get('check')).toEqual([{ field: 'conditions[0].value', message: expect.stringContaining('operator in needs a list') }]);
    expect(fieldMessages(placed.nodes.get('check'), 'conditions[0].value')).toHaveLength(1);
    expect(fieldMessages(placed.nodes.get('check'), 'conditions')).toHaveLength(1);
    expect(fieldMessages(placed.nodes.get('check'), 'match')).toHaveLength(0);
  });

  it('puts an edge problem on its edge, and the rest aside', () => {
    expect([...placed.edges.keys()]).toEqual([canvas.edges[2].id]);
    expect(placed.edges.get(canvas.edges[2].id)![0]).toMatch(/duplicates edge 1/);
    expect(placed.general).toEqual([{ path: 'name', message: 'name must not be blank.' }]);
  });

  it('says which messages no field of a form shows', () => {
    const issues = [
      { field: '', message: 'the node as a whole' },
      { field: 'tag', message: 'on tag' },
      { field: 'headers["X-A"]', message: 'inside headers' },
    ];
    expect(unplacedMessages(issues, ['tag', 'headers'])).toEqual(['the node as a whole']);
  });
});
