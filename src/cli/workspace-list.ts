import type { Command } from './command.ts';
import { table, when } from './table.ts';

/** `workspace list`: every workspace, for an operator looking for an id (or checking a name is unique). */
export const workspaceList: Command = {
  usage: '',
  summary: 'List the workspaces, oldest first: id, name, created.',
  options: {},
  prepare() {
    return async ({ workspaces }) => {
      const all = await workspaces.listWorkspaces();
      return {
        json: { workspaces: all.map((w) => ({ id: w.id, name: w.name, createdAt: w.createdAt.toISOString() })) },
        text: all.length === 0 ? 'No workspaces yet.' : table([['ID', 'NAME', 'CREATED'], ...all.map((w) => [w.id, w.name, when(w.createdAt, '')])]),
      };
    };
  },
};
