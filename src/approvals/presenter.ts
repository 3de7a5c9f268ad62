import { z } from 'zod';
import { APPROVAL_QUORUMS } from '../graph/index.ts';
import { timestamp, uuid } from '../http/response-fields.ts';
import { APPROVAL_STATUSES, DECISIONS, type Approval } from './entity.ts';

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
    workflowId: uuid().meta({ description: 'The workflow whose run asks.' }),
    executionId: uuid().meta({ description: 'The run that asks; it waits for the decision.' }),
    ticketId: uuid().nullable(),
    nodeId: z.string().meta({ description: 'Its request_approval node.' }),
    question: z.string().meta({ description: 'The node\'s question, rendered when the run asked.' }),
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
    workflowId: a.workflow,
    executionId: a.execution,
    ticketId: a.ticketId ?? null,
    nodeId: a.nodeId,
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
