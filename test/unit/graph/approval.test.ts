// The request_approval action in the graph language: what a graph may say, how the walk
// branches on it, and where it names the workspace's members.
// docs/automations.md, "request_approval: a person's yes or no".
import { describe, expect, it } from 'vitest';
import { GraphWalker, isBranchingNode, memberReferences, renderAction, ticketActionsReached, type ActionData, type WorkflowGraph } from '../../../src/graph/index.ts';
import { outcomeOf, decidedBy } from '../../../src/approvals/rules.ts';
import { action, edge, expectOnlyIssue, expectValid, issuesOf, trigger, withNode, type Json } from './fixtures.ts';

const D = 'workflowJson.nodes[1].data';
const OFFICE = '3f0c8a52-6f1e-4d8b-9a51-0c1c2b7e4d10';
const ask = (extra: Json = {}): Json => ({ actionType: 'request_approval', approvers: ['dana', 'lee'], question: 'Refund {{data.amount}}?', ...extra });
/** The node's data without `key`, as JSON would send it. */
const without = (key: string): Json => Object.fromEntries(Object.entries(ask()).filter(([k]) => k !== key));
const okApproval = (data: Json) => expectValid(withNode(action('a1', data)));
const badApproval = (data: Json, path: string, message: RegExp) => {
  const issue = expectOnlyIssue(withNode(action('a1', data)), path, message);
  expect(issue.message.startsWith('node "a1": ')).toBe(true);
};

describe('request_approval: its parameters', () => {
  it('takes approvers and a question, and optionally a quorum, a time-out (in open time with a calendar) and what a time-out means', () => {
    okApproval(ask());
    okApproval(ask({ quorum: 'all', timeoutSeconds: 86_400, onTimeout: 'approve', label: 'Refund?' }));
    okApproval(ask({ quorum: 'any', timeoutSeconds: 3600, calendarId: OFFICE, onTimeout: 'reject' }));
    okApproval(ask({ approvers: Array.from({ length: 20 }, (_, i) => `agent-${i}`), question: 'x'.repeat(2000) }));
    okApproval(ask({ onTimeout: 'approve' }));
  });

  it('needs 1-20 distinct user ids as approvers', () => {
    badApproval(without('approvers'), `${D}.approvers`, /approvers is missing/);
    badApproval(ask({ approvers: [] }), `${D}.approvers`, /approvers must be a list of 1-20 user ids/);
    badApproval(ask({ approvers: 'dana' }), `${D}.approvers`, /a list of 1-20/);
    badApproval(ask({ approvers: Array.from({ length: 21 }, (_, i) => `a${i}`) }), `${D}.approvers`, /1-20/);
    badApproval(ask({ approvers: ['dana', 'dana'] }), `${D}.approvers[1]`, /"dana" is listed twice \(also approvers\[0\]\)/);
    badApproval(ask({ approvers: ['dana', ' lee'] }), `${D}.approvers[1]`, /without surrounding whitespace/);
    badApproval(ask({ approvers: ['dana', ''] }), `${D}.approvers[1]`, /1-200 characters/);
    badApproval(ask({ approvers: ['   '] }), `${D}.approvers[0]`, /must not be blank/);
    badApproval(ask({ approvers: [42] }), `${D}.approvers[0]`, /must be a string/);
    badApproval(ask({ approvers: ['x'.repeat(201)] }), `${D}.approvers[0]`, /1-200 characters/);
  });

  it('needs a question of 1-2,000 characters whose placeholders name context paths', () => {
    badApproval(without('question'), `${D}.question`, /question is missing/);
    badApproval(ask({ question: '  ' }), `${D}.question`, /must not be blank/);
    badApproval(ask({ question: 'x'.repeat(2001) }), `${D}.question`, /1-2000 characters/);
    badApproval(ask({ question: 'Refund {{ticket.subjct}}?' }), `${D}.question`, /placeholder \{\{ticket.subjct\}\}/);
  });

  it('refuses another quorum or time-out outcome, a time-out out of bounds, and a calendar without a time-out', () => {
    badApproval(ask({ quorum: 'most' }), `${D}.quorum`, /quorum must be one of any, all/);
    badApproval(ask({ timeoutSeconds: 0 }), `${D}.timeoutSeconds`, /greater than 0 and at most 31536000/);
    badApproval(ask({ timeoutSeconds: 31_536_001 }), `${D}.timeoutSeconds`, /at most 31536000/);
    badApproval(ask({ timeoutSeconds: 60, onTimeout: 'wait' }), `${D}.onTimeout`, /onTimeout must be one of reject, approve/);
    badApproval(ask({ calendarId: OFFICE }), `${D}.calendarId`, /without a time-out the approval waits until someone decides/);
    badApproval(ask({ timeoutSeconds: 60, calendarId: 'office' }), `${D}.calendarId`, /the id of a calendar/);
    badApproval(ask({ approver: 'dana' }), `${D}.approver`, /unknown parameter "approver"/);
  });

  it('has edges labelled like a condition\'s, and only its own and a wait\'s besides', () => {
    const graph = (labelled: Json[]) => ({ nodes: [trigger(), action('ask', ask()), action('yes'), action('no')], edges: [edge('trigger', 'ask'), ...labelled] });
    expectValid(graph([edge('ask', 'yes', 'true'), edge('ask', 'no', 'false')]));
    expectValid(graph([edge('ask', 'yes'), edge('ask', 'no', 'false')]));
    const issues = issuesOf(graph([edge('ask', 'yes', 'true'), edge('ask', 'yes')]));
    expect(issues[0].message).toMatch(/duplicates edge 1/);
    const labelled = issuesOf({ nodes: [trigger(), action('t1'), action('t2')], edges: [edge('trigger', 't1'), edge('t1', 't2', 'true')] });
    expect(labelled[0].message).toMatch(/a condition node or a wait_for_reply or request_approval action/);
  });
});

describe('request_approval in a run', () => {
  const graph = { nodes: [trigger('start', 'manual'), action('ask', ask()), action('yes'), action('no')], edges: [edge('start', 'ask'), edge('ask', 'yes', 'true'), edge('ask', 'no', 'false')] } as unknown as WorkflowGraph;

  it('branches like a condition: true follows the true edges, false the false ones', () => {
    expect(isBranchingNode(graph.nodes[1])).toBe(true);
    for (const [outcome, next] of [[true, 'yes'], [false, 'no']] as const) {
      const walker = new GraphWalker(graph);
      walker.start();
      expect(walker.complete('start')).toEqual(['ask']);
      expect(() => walker.complete('ask')).toThrow(/needs a true\/false outcome/);
      expect(walker.complete('ask', outcome)).toEqual([next]);
    }
  });

  it('needs no ticket, and may go either way in a run without one', () => {
    const ticketless = { ...graph, nodes: [graph.nodes[0], graph.nodes[1], action('yes', { actionType: 'delay', seconds: 1 }), action('no')] } as unknown as WorkflowGraph;
    expect(ticketActionsReached(ticketless, { data: {} })).toEqual([{ nodeId: 'no', actionType: 'add_tag' }]);
    expect(ticketActionsReached({ ...ticketless, nodes: [graph.nodes[0], graph.nodes[1]], edges: [edge('start', 'ask')] } as unknown as WorkflowGraph, { data: {} })).toEqual([]);
  });

  it('renders its question from the context, and only its question', () => {
    const rendered = renderAction(ask({ approvers: ['{{data.who}}'] }) as unknown as ActionData, { data: { amount: 120, who: 'x' } });
    expect(rendered).toMatchObject({ question: 'Refund 120?', approvers: ['{{data.who}}'] });
  });

  it('names its approvers as members of the workspace, with the path of each', () => {
    const two = { ...graph, nodes: [...graph.nodes, action('again', ask({ approvers: ['kim'] }))] } as unknown as WorkflowGraph;
    expect(memberReferences(two)).toEqual([
      { userId: 'dana', nodeId: 'ask', path: 'workflowJson.nodes[1].data.approvers[0]' },
      { userId: 'lee', nodeId: 'ask', path: 'workflowJson.nodes[1].data.approvers[1]' },
      { userId: 'kim', nodeId: 'again', path: 'workflowJson.nodes[4].data.approvers[0]' },
    ]);
  });
});

describe('what decisions make of an approval', () => {
  const d = (userId: string, decision: 'approve' | 'reject') => ({ userId, decision, comment: null, at: '2026-11-28T10:00:00.000Z' });

  it('quorum any: the first decision decides, either way', () => {
    expect(outcomeOf('any', ['a', 'b'], [])).toBe('pending');
    expect(outcomeOf('any', ['a', 'b'], [d('b', 'approve')])).toBe('approved');
    expect(outcomeOf('any', ['a', 'b'], [d('a', 'reject')])).toBe('rejected');
  });

  it('quorum all: approved once every approver approved; one rejection rejects', () => {
    expect(outcomeOf('all', ['a', 'b', 'c'], [d('a', 'approve'), d('c', 'approve')])).toBe('pending');
    expect(outcomeOf('all', ['a', 'b', 'c'], [d('a', 'approve'), d('c', 'approve'), d('b', 'approve')])).toBe('approved');
    expect(outcomeOf('all', ['a', 'b', 'c'], [d('a', 'approve'), d('b', 'reject')])).toBe('rejected');
  });

  it('decided by those whose decisions decided it; by nobody when it expired or was cancelled', () => {
    const decisions = [d('a', 'approve'), d('c', 'approve'), d('b', 'approve')];
    expect(decidedBy('approved', decisions)).toEqual(['a', 'c', 'b']);
    expect(decidedBy('rejected', [d('a', 'approve'), d('b', 'reject')])).toEqual(['b']);
    expect(decidedBy('expired', [d('a', 'approve')])).toEqual([]);
    expect(decidedBy('cancelled', [])).toEqual([]);
  });
});
