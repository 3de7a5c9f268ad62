import { checkName, requiredOption, type CommandGroup } from './command.ts';
import { workspaceList } from './workspace-list.ts';

export const workspaceCommands: CommandGroup = {
  name: 'workspace',
  commands: {
    create: {
      usage: '--name NAME',
      summary: 'Create a workspace; prints its id.',
      options: { name: { type: 'string' } },
      prepare(args) {
        const name = checkName(requiredOption(args, 'name'), '--name');
        return async ({ workspaces }) => {
          const workspace = await workspaces.createWorkspace(name);
          return {
            json: { id: workspace.id, name: workspace.name },
            text: `Created workspace "${workspace.name}" (${workspace.id}).`,
          };
        };
      },
    },
    list: workspaceList,
  },
};
