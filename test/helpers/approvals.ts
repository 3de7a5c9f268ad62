// Approvals for the API tests, which run without a workflow engine: a manual run of a refund
// workflow is created (pending: nothing starts it), and the approval its `ask` node would make
// is made as the run makes it (src/approvals/runs.ts). The engine tests take the whole way.
import type { MikroORM } from '@mikro-orm/postgresql';
import { requestApproval } from '../../src/approvals/runs.ts';
import type { Client } from './app.ts';
import { createWorkflow, openTicket, triggerWorkflow } from './api.ts';
import { actionNode, approvalNode, chain, refundApproval, triggerNode } from './graphs.ts';

export type AskOptions = {
  approvers?: string[];
  quorum?: 'any' | 'all';
  timeoutSeconds?: number;
  /** false: a run without a ticket (nothing after its approval needs one). */
  ticket?: boolean;
};

export type Asked = { approvalId: string; workflowId: string; executionId: string; ticketId: string | null };

/** A run of the workspace of `api` (id `workspaceId`) that reached its request_approval node `ask`, and the approval it made. */
export async function askApproval(orm: MikroORM, api: Client, workspaceId: string, opts: AskOptions = {}): Promise<Asked> {
  const approvers = opts.approvers ?? ['alice', 'bob'];
  const extra = opts.quorum ? { quorum: opts.quorum } : {};
  const body =
    opts.ticket === false
      ? { name: 'Ticketless approval', triggerType: 'manual', workflowJson: chain(triggerNode('manual', 'start'), approvalNode('ask', approvers, extra), actionNode('pause', { actionType: 'delay', seconds: 60 })) }
      : refundApproval(approvers, extra);
  const workflow = await createWorkflow(api, body);
  const ticketId = opts.ticket === false ? null : await openTicket(api);
  const execution = await triggerWorkflow(api, workflow.id, { ...(ticketId ? { ticketId } : {}), data: { amount: 120 } });
  const asked = await requestApproval(
    orm.em.fork(),
    {
      executionId: execution.id,
      workspaceId,
      workflowId: workflow.id,
      ticketId,
      nodeId: 'ask',
      question: 'Refund 120 EUR?',
      approvers,
      quorum: opts.quorum ?? 'any',
      ...(opts.timeoutSeconds !== undefined ? { timeoutSeconds: opts.timeoutSeconds } : {}),
      startedAt: new Date().toISOString(),
    },
    [],
  );
  return { approvalId: asked.approvalId, workflowId: workflow.id, executionId: execution.id, ticketId };
}
