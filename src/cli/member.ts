import { checkRole, checkUserId, optionalOption, requiredOption, requireWorkspace, type CommandGroup } from './command.ts';
import { CommandError } from './errors.ts';
import { memberList } from './member-list.ts';

export const memberCommands: CommandGroup = {
  name: 'member',
  commands: {
    add: {
      usage: '--workspace ID|NAME --user USER_ID [--role member|admin]',
      summary: 'Make a user a member (default) or admin of a workspace; an existing member gets the new role.',
      options: { workspace: { type: 'string' }, user: { type: 'string' }, role: { type: 'string' } },
      prepare(args) {
        const workspaceArg = requiredOption(args, 'workspace');
        const userId = checkUserId(requiredOption(args, 'user'));
        const role = checkRole(optionalOption(args, 'role'));
        return async ({ workspaces }) => {
          const workspaceId = await requireWorkspace(workspaces, workspaceArg);
          const member = await workspaces.addMember(workspaceId, userId, role);
          return {
            json: { workspaceId, userId: member.userId, role: member.role },
            text: `User "${member.userId}" is now ${member.role === 'admin' ? 'an admin' : 'a member'} of workspace ${workspaceId}.`,
          };
        };
      },
    },
    remove: {
      usage: '--workspace ID|NAME --user USER_ID',
      summary: 'Remove a user from a workspace; tickets can no longer be assigned to them.',
      options: { workspace: { type: 'string' }, user: { type: 'string' } },
      prepare(args) {
        const workspaceArg = requiredOption(args, 'workspace');
        const userId = checkUserId(requiredOption(args, 'user'));
        return async ({ workspaces }) => {
          const workspaceId = await requireWorkspace(workspaces, workspaceArg);
          if (!(await workspaces.removeMember(workspaceId, userId))) {
            throw new CommandError(`user "${userId}" is not a member of workspace ${workspaceId}`);
          }
          return {
            json: { workspaceId, userId, removed: true },
            text: `Removed user "${userId}" from workspace ${workspaceId}.`,
          };
        };
      },
    },
    list: memberList,
  },
};
