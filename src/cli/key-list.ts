import { workspaceCommand } from './command.ts';
import { table, when } from './table.ts';

/**
 * `key list --workspace ID|NAME`: a workspace's keys with what tells them apart (id, public
 * part, name, created, last used to the minute, revoked), never a secret: what an operator
 * needs to find the key to revoke.
 */
export const keyList = workspaceCommand({
  summary: 'List the API keys of a workspace: id, public part, name, created, last used, revoked. Never the secret.',
  async run({ workspaces }, workspaceId) {
    const keys = await workspaces.listKeys(workspaceId);
    const iso = (at: Date | null) => (at ? at.toISOString() : null);
    return {
      json: {
        workspaceId,
        keys: keys.map((k) => ({ id: k.id, prefix: k.prefix, name: k.name, createdAt: k.createdAt.toISOString(), lastUsedAt: iso(k.lastUsedAt), revokedAt: iso(k.revokedAt) })),
      },
      text:
        keys.length === 0
          ? `Workspace ${workspaceId} has no API keys.`
          : table([
              ['ID', 'KEY', 'NAME', 'CREATED', 'LAST USED', 'REVOKED'],
              ...keys.map((k) => [k.id, `${k.prefix}_…`, k.name ?? '-', when(k.createdAt, ''), when(k.lastUsedAt, 'never'), when(k.revokedAt, '-')]),
            ]),
    };
  },
});
