import type { EntityManager } from '@mikro-orm/postgresql';
import { forbidden } from '../errors.ts';
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

/** The 403 of an assignee who is not a current member or admin of the workspace, with the command that makes them one. */
export function notAssignable(workspaceId: string, assignee: string) {
  return forbidden(
    `"${assignee}" is not a current member or admin of this workspace. ` +
      `An operator makes them one with: npm run admin -- member add --workspace ${workspaceId} --user ${shellWord(assignee)}`,
  );
}

/** `word` as one shell argument: as it is when it is plain, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
