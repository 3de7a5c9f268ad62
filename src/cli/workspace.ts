import { checkName, requiredOption, type CommandGroup } from './command.ts';
import { CommandError } from './errors.ts';
import { workspaceList } from './workspace-list.ts';

export const workspaceCommands: CommandGroup = {
  name: 'workspace',
  commands: {
    create: {
      usage: '--name NAME',
      summary: 'Create a workspace; prints its id. Names are unique: a name in use is refused.',
      options: { name: { type: 'string' } },
      prepare(args) {
        const name = checkName(requiredOption(args, 'name'), '--name');
        return async ({ workspaces }) => {
          // --workspace takes a name wherever it takes an id: a second workspace of a name would make it ambiguous.
          const existing = await workspaces.workspacesNamed(name);
          if (existing.length > 0) {
            throw new CommandError(`a workspace named "${name}" already exists (${existing.map((w) => w.id).join(', ')}); choose another name`);
          }
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
