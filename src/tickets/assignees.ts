import type { EntityManager } from '@mikro-orm/postgresql';
import { Member } from '../workspaces/entity.ts';
import { AI_ASSIGNEE } from './values.ts';

/** Who may own tickets of a workspace (docs/contract.md): the AI agent, or a current member or admin of that exact workspace. */
export interface AssigneeDirectory {
  isAssignable(workspaceId: string, assignee: string): Promise<boolean>;
}

/** The assignee rule on the workspace's members. */
export class MemberAssignees implements AssigneeDirectory {
  private readonly em: EntityManager;

  constructor(em: EntityManager) {
    this.em = em;
  }

  async isAssignable(workspaceId: string, assignee: string): Promise<boolean> {
    if (assignee === AI_ASSIGNEE) return true;
    return (await this.em.count(Member, { workspace: workspaceId, userId: assignee })) > 0;
  }
}
