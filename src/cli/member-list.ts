import { workspaceCommand } from './command.ts';
import { table, when } from './table.ts';

/** `member list --workspace ID|NAME`: who tickets of a workspace can be assigned to, and as what. */
export const memberList = workspaceCommand({
  summary: 'List the members of a workspace, in the order they were added: user id, role, added.',
  async run({ workspaces }, workspaceId) {
    const members = await workspaces.listMembers(workspaceId);
    return {
      json: { workspaceId, members: members.map((m) => ({ userId: m.userId, role: m.role, createdAt: m.createdAt.toISOString() })) },
      text:
        members.length === 0
          ? `Workspace ${workspaceId} has no members: add one with npm run admin -- member add --workspace ${workspaceId} --user USER_ID`
          : table([['USER', 'ROLE', 'ADDED'], ...members.map((m) => [m.userId, m.role, when(m.createdAt, '')])]),
    };
  },
});
