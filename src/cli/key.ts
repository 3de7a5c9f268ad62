import { checkName, optionalOption, requiredOption, requireWorkspace, type CommandGroup } from './command.ts';
import { CommandError } from './errors.ts';
import { keyList } from './key-list.ts';

export const keyCommands: CommandGroup = {
  name: 'key',
  commands: {
    create: {
      usage: '--workspace ID|NAME [--name N]',
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
    list: keyList,
    revoke: {
      usage: 'KEY_ID|dfk_PUBLIC',
      summary: 'Revoke an API key by its id or its public part (dfk_<16 hex>, as key list shows it); requests with it are refused from then on.',
      options: {},
      positionals: ['KEY_ID|dfk_PUBLIC'],
      prepare(args) {
        const reference = args.positionals[0];
        return async ({ workspaces }) => {
          const revoked = await workspaces.revokeKeyByReference(reference);
          // A whole key given by mistake is never echoed back: its public part names it.
          const named = reference.startsWith('dfk_') ? reference.slice(0, 20) : reference;
          if (!revoked) throw new CommandError(`API key not found: ${named}`);
          return { json: { id: revoked.id, revoked: true }, text: `Revoked API key ${revoked.id} (${revoked.prefix}_…).` };
        };
      },
    },
  },
};
