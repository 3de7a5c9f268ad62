import { checkName, optionalOption, requiredOption, requireWorkspace, type CommandGroup } from './command.ts';
import { CommandError } from './errors.ts';

export const keyCommands: CommandGroup = {
  name: 'key',
  commands: {
    create: {
      usage: '--workspace ID [--name N]',
      summary: 'Issue an API key for a workspace. The key is shown once; only its hash is stored.',
      options: { workspace: { type: 'string' }, name: { type: 'string' } },
      prepare(args) {
        const workspaceArg = requiredOption(args, 'workspace');
        const given = optionalOption(args, 'name');
        const name = given === undefined ? undefined : checkName(given, '--name');
        return async ({ workspaces }) => {
          const workspaceId = await requireWorkspace(workspaces, workspaceArg);
          const { id, key } = await workspaces.createKey(workspaceId, name);
          return {
            json: { id, key },
            text: [
              `Created API key ${id} for workspace ${workspaceId}.`,
              `Key (shown once; only its hash is stored, so keep it now): ${key}`,
            ].join('\n'),
          };
        };
      },
    },
    revoke: {
      usage: 'KEY_ID',
      summary: 'Revoke an API key by its id; requests with it are refused from then on.',
      options: {},
      positionals: ['KEY_ID'],
      prepare(args) {
        const keyId = args.positionals[0];
        return async ({ workspaces }) => {
          if (!(await workspaces.revokeKey(keyId))) throw new CommandError(`API key not found: ${keyId}`);
          const id = keyId.toLowerCase(); // a UUID, as stored
          return { json: { id, revoked: true }, text: `Revoked API key ${id}.` };
        };
      },
    },
  },
};
