// Graphs the console's unit tests share.
import type { WorkflowGraph } from '../../../src/graph/index.ts';

/** The tutorial's "Escalate urgent tickets" (docs/automations-tutorial.md), as the API stores it (no positions, unlabelled join edges). */
export const urgent = (): WorkflowGraph =>
  ({
    nodes: [
      { id: 'created', type: 'trigger', data: { triggerType: 'ticket_created' } },
      { id: 'is-urgent', type: 'condition', data: { field: 'ticket.subject', operator: 'contains', value: 'urgent' } },
      { id: 'raise', type: 'action', data: { actionType: 'set_priority', priority: 'urgent' } },
      { id: 'tag', type: 'action', data: { actionType: 'add_tag', tag: 'escalated' } },
      { id: 'reply', type: 'action', data: { actionType: 'send_reply', body: 'Hi {{ticket.customerName}}, we are on it.' } },
    ],
    edges: [
      { source: 'created', target: 'is-urgent' },
      { source: 'is-urgent', target: 'raise', label: 'true' },
      { source: 'is-urgent', target: 'tag', label: 'true' },
      { source: 'raise', target: 'reply' },
      { source: 'tag', target: 'reply' },
    ],
  }) as WorkflowGraph;
