import type { EntityManager } from '@mikro-orm/postgresql';
import { Workspace } from './entity.ts';

/** docs/contract.md §3: the workspace setting that lets a customer reply reopen a ticket (on by default). */
export async function reopensOnCustomerReplyIn(em: EntityManager, workspaceId: string): Promise<boolean> {
  const workspace = await em.findOneOrFail(Workspace, { id: workspaceId }, { fields: ['reopenOnCustomerReply'] });
  return workspace.reopenOnCustomerReply;
}
