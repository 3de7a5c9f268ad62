import { z } from 'zod';
import { APPROVAL_QUORUMS } from '../graph/index.ts';
import { timestamp, uuid } from '../http/response-fields.ts';
import { APPROVAL_SOURCES, APPROVAL_STATUSES, DECISIONS, type Approval } from './entity.ts';

const publicDecision = z
  .strictObject({
    userId: z.string(),
    decision: z.enum(DECISIONS),
    comment: z.string().nullable(),
    at: timestamp(),
  })
  .meta({ id: 'ApprovalDecision' });

/** An approval as every answer shows it (docs/api.md, "Approvals"). */
export const publicApproval = z
  .strictObject({
    id: uuid(),
    source: z.enum(APPROVAL_SOURCES).meta({ description: 'Who asks: `run`, a request_approval node of a run, which waits for the decision; `ai_owner`, the AI owner about a draft reply (autoSend false), sent when approved, discarded with a hand-off when rejected.' }),
    workflowId: uuid().nullable().meta({ description: 'The workflow whose run asks; null for the AI owner\'s.' }),
    executionId: uuid().nullable().meta({ description: 'The run that asks; it waits for the decision. Null for the AI owner\'s.' }),
    ticketId: uuid().nullable(),
    nodeId: z.string().nullable().meta({ description: 'Its request_approval node; null for the AI owner\'s.' }),
    draftId: uuid().nullable().meta({ description: 'The AI owner\'s draft it asks about (a turn of GET /api/v1/tickets/:ticketId/ai); null for a run\'s.' }),
    question: z.string().meta({ description: 'The node\'s question, rendered when the run asked; for the AI owner\'s, who the reply goes to, on which ticket, then the reply.' }),
    approvers: z.array(z.string()),
    quorum: z.enum(APPROVAL_QUORUMS).meta({ description: '`any`: the first decision decides; `all`: every approver must approve. Either way one rejection rejects.' }),
    status: z.enum(APPROVAL_STATUSES),
    decisions: z.array(publicDecision).meta({ description: 'In the order they were given.' }),
    requestedAt: timestamp(),
    dueAt: timestamp().nullable().meta({ description: 'When it expires unless decided; null: it waits until someone decides.' }),
    decidedAt: timestamp().nullable().meta({ description: 'When it stopped being pending (decided, expired or cancelled).' }),
  })
  .meta({ id: 'Approval' });
export type PublicApproval = z.output<typeof publicApproval>;

export const approvalEnvelope = z.strictObject({ approval: publicApproval });
export const approvalList = z.strictObject({ approvals: z.array(publicApproval).meta({ description: 'Newest first.' }) });

export function presentApproval(a: Approval): PublicApproval {
  return {
    id: a.id,
    source: a.source,
    workflowId: a.workflow ?? null,
    executionId: a.execution ?? null,
    ticketId: a.ticketId ?? null,
    nodeId: a.nodeId ?? null,
    draftId: a.draftId ?? null,
    question: a.question,
    approvers: a.approvers,
    quorum: a.quorum,
    status: a.status,
    decisions: a.decisions,
    requestedAt: a.createdAt.toISOString(),
    dueAt: a.dueAt ? a.dueAt.toISOString() : null,
    decidedAt: a.decidedAt ? a.decidedAt.toISOString() : null,
  };
}
