// Workflow graphs of the tests and the bench: the node and edge builders, and the sample graphs
// that several of them use (written once here, so that a change of the graph format is made once).
// Plain data, no test runner: the bench imports it too.

export type Json = Record<string, unknown>;
export type NodeJson = { id: string; type: string; data: Json };
export type EdgeJson = { source: string; target: string; label?: string };

// --- builders -------------------------------------------------------------------------

export const triggerNode = (triggerType: string = 'ticket_created', id = 'trigger', extra: Json = {}): NodeJson => ({
  id,
  type: 'trigger',
  data: { triggerType, ...extra },
});
export const conditionNode = (id: string, data: Json = { field: 'ticket.status', operator: 'equals', value: 'open' }): NodeJson => ({
  id,
  type: 'condition',
  data,
});
export const actionNode = (id: string, data: Json = { actionType: 'add_tag', tag: 'vip' }): NodeJson => ({ id, type: 'action', data });
export const edge = (source: string, target: string, label?: 'true' | 'false'): EdgeJson =>
  label === undefined ? { source, target } : { source, target, label };

/**
 * Edges written as paths, separated by commas: 'a > b' is an edge, 'a >true b' and 'a >false b'
 * are the labelled branches of a condition (or of a wait for a reply), and 'a > b > c' chains.
 */
export function paths(spec: string): EdgeJson[] {
  return spec.split(',').flatMap((path) => {
    const steps = path.trim().split(/\s+/);
    const found: EdgeJson[] = [];
    for (let i = 1; i + 1 < steps.length; i += 2) {
      const label = steps[i].slice(1);
      found.push(edge(steps[i - 1], steps[i + 1], label === '' ? undefined : (label as 'true' | 'false')));
    }
    return found;
  });
}

/** A graph of `nodes` that run one after the other, after `trigger`. */
export const chain = (trigger: NodeJson, ...nodes: NodeJson[]) => ({ nodes: [trigger, ...nodes], edges: paths([trigger, ...nodes].map((n) => n.id).join(' > ')) });

/** The graph a workflow gets when created without workflowJson (docs/contract.md §4). */
export const defaultGraph = (triggerType: string) => ({
  nodes: [{ id: 'trigger', type: 'trigger', data: { triggerType } }],
  edges: [],
});

/** trigger → one node. */
export const graphWith = (node: Json, triggerType = 'ticket_created'): Json => ({
  nodes: [triggerNode(triggerType), node],
  edges: [edge('trigger', String(node.id))],
});

// --- sample graphs --------------------------------------------------------------------

/**
 * A workflow whose run reaches an action whatever the context, one that needs no ticket (a run
 * without one is accepted): its executions need the engine (pending without one).
 */
export const runnable = (triggerType = 'ticket_created') => ({ triggerType, workflowJson: graphWith(actionNode('pause', { actionType: 'delay', seconds: 60 }), triggerType) });

/** A small valid graph: trigger → condition → (true) add_tag. */
export const simpleGraph = (triggerType = 'ticket_created', tag = 'vip'): Json => ({
  nodes: [triggerNode(triggerType), conditionNode('is-open'), actionNode('tag-it', { actionType: 'add_tag', tag })],
  edges: [edge('trigger', 'is-open'), edge('is-open', 'tag-it', 'true')],
});

/** "Subject contains urgent", the condition of the tutorial's example and of many tests. */
export const subjectIsUrgent = (id = 'is-urgent') => conditionNode(id, { field: 'ticket.subject', operator: 'contains', value: 'urgent' });
/** set_priority urgent. */
export const raiseToUrgent = (id = 'raise') => actionNode(id, { actionType: 'set_priority', priority: 'urgent' });

/**
 * The body that creates a workflow named `name`: its trigger node first, then `nodes`, linked
 * by `edges` written as paths (see paths()).
 */
export function workflowOf(name: string, trigger: NodeJson, nodes: NodeJson[], edges: string) {
  return { name, triggerType: String(trigger.data.triggerType), workflowJson: { nodes: [trigger, ...nodes], edges: paths(edges) } };
}

/**
 * The tutorial's "Escalate urgent tickets" (docs/automations-tutorial.md), as written there: a ticket created with "urgent" in
 * its subject is raised to urgent and tagged `escalated` in parallel, then answered once. A new
 * object each call (tests change theirs).
 */
export const escalateUrgent = () =>
  workflowOf(
    'Escalate urgent tickets',
    triggerNode('ticket_created', 'created'),
    [subjectIsUrgent(), raiseToUrgent(), actionNode('tag', { actionType: 'add_tag', tag: 'escalated' }), actionNode('reply', { actionType: 'send_reply', body: 'Hi {{ticket.customerName}}, we are on it.' })],
    'created > is-urgent, is-urgent >true raise, is-urgent >true tag, raise > reply, tag > reply',
  );

/**
 * The bench's automation, the 3-node one: condition (subject contains "printer") → add_tag ∥
 * set_priority.
 */
export const printerTickets = () =>
  workflowOf(
    'Bench: printer tickets',
    triggerNode('ticket_created', 'created'),
    [
      conditionNode('is-printer', { field: 'ticket.subject', operator: 'contains', value: 'printer' }),
      actionNode('tag', { actionType: 'add_tag', tag: 'hardware' }),
      actionNode('raise', { actionType: 'set_priority', priority: 'high' }),
    ],
    'created > is-printer, is-printer >true tag, is-printer >true raise',
  );

/** A manual workflow that waits at `wait` (a delay of `delay`: seconds, or business seconds and a calendar), then tags the ticket `later`. */
export const waitThenTag = (name: string, delay: Json) =>
  workflowOf(name, triggerNode('manual', 'start'), [actionNode('wait', { actionType: 'delay', ...delay }), actionNode('tag', { actionType: 'add_tag', tag: 'later' })], 'start > wait > tag');

/** A request_approval node asking `approvers` (more of its data in `extra`: quorum, timeoutSeconds, onTimeout, calendarId). */
export const approvalNode = (id: string, approvers: string[], extra: Json = {}): NodeJson =>
  actionNode(id, { actionType: 'request_approval', approvers, question: 'Refund {{data.amount}} EUR on "{{ticket.subject}}"?', ...extra });

/**
 * "Refunds over the limit need a yes": a manual run asks `approvers` at `ask`; approved, the
 * ticket is tagged `refund-approved`; rejected (or timed out, unless `onTimeout` says approve),
 * `refund-refused`.
 */
export const refundApproval = (approvers: string[], extra: Json = {}, name = 'Refund approval') =>
  workflowOf(
    name,
    triggerNode('manual', 'start'),
    [approvalNode('ask', approvers, extra), actionNode('approved', { actionType: 'add_tag', tag: 'refund-approved' }), actionNode('refused', { actionType: 'add_tag', tag: 'refund-refused' })],
    'start > ask >true approved, ask >false refused',
  );
