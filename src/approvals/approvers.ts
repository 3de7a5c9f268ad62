import type { EntityManager } from '@mikro-orm/postgresql';
import { validationFailed } from '../errors.ts';
import { memberReferences, type WorkflowGraph } from '../graph/index.ts';
import { Member } from '../workspaces/entity.ts';

/**
 * The approvers a graph names (request_approval) are current members or admins of the
 * workspace: a 400 naming the node and the person otherwise, so a run never asks someone who
 * could not answer. Checked when a graph is saved or a workflow activated; a person removed
 * later cannot decide (the decision is a 403).
 */
export async function checkApprovers(em: EntityManager, workspaceId: string, graph: WorkflowGraph): Promise<void> {
  const refs = memberReferences(graph);
  if (refs.length === 0) return;
  const found = await em.find(Member, { workspace: workspaceId, userId: { $in: [...new Set(refs.map((r) => r.userId))] } }, { fields: ['userId'] });
  const members = new Set(found.map((m) => m.userId));
  const missing = refs.filter((r) => !members.has(r.userId));
  if (missing.length === 0) return;
  throw validationFailed(
    missing.map((r) => ({
      path: r.path,
      message: `node ${JSON.stringify(r.nodeId)}: approver ${JSON.stringify(r.userId)} is not a current member or admin of this workspace (an operator adds one with: npm run admin -- member add --workspace ${workspaceId} --user <id>)`,
    })),
    'workflowJson names approvers who are not members or admins of this workspace.',
  );
}
