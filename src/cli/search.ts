import { optionalOption, requireWorkspace, type CommandGroup } from './command.ts';

/**
 * `search rebuild [--workspace ID|NAME]`: rebuilds the ticket list's stale search documents
 * (src/tickets/search-index.ts), of one workspace or of all, beside a running desk.
 */
export const searchCommands: CommandGroup = {
  name: 'search',
  commands: {
    rebuild: {
      usage: '[--workspace ID|NAME]',
      summary: "Rebuild the search documents of tickets that have none or an outdated one (after a rolling upgrade's older workers, or a partial restore); safe to run at any time.",
      options: { workspace: { type: 'string' } },
      prepare(args) {
        const workspaceArg = optionalOption(args, 'workspace');
        return async ({ workspaces, searchDocuments }) => {
          const workspaceId = workspaceArg === undefined ? undefined : await requireWorkspace(workspaces, workspaceArg);
          const { checked, rebuilt } = await (await searchDocuments!())(workspaceId);
          const where = workspaceId ? `workspace ${workspaceId}` : 'every workspace';
          return {
            json: { workspaceId: workspaceId ?? null, checked, rebuilt },
            text: `Looked at ${checked} ticket(s) of ${where}; rebuilt ${rebuilt} search document(s).`,
          };
        };
      },
    },
  },
};
