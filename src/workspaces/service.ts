import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey, ApiKeyUsage, Member, type MemberRole, Workspace } from './entity.ts';
import { generateKey, KEY_PREFIX, parseKeyReference } from './keys.ts';
import { isUuid } from '../ids.ts';

/** A key as an operator sees it: never its secret, nor the hash of it. */
export type KeyView = { id: string; prefix: string; name: string | null; createdAt: Date; lastUsedAt: Date | null; revokedAt: Date | null };

/** How a workspace named on a command line was found: by id, or by a name only it has. */
export type WorkspaceLookup = { found: Workspace } | { found: null; sameName: Workspace[] };

/** Workspaces, their API keys and their members. Used by the HTTP auth layer and the admin CLI. */
export class WorkspaceService {
  private readonly em: EntityManager;

  constructor(em: EntityManager) {
    this.em = em;
  }

  async createWorkspace(name: string): Promise<Workspace> {
    const workspace = this.em.create(Workspace, { name });
    await this.em.flush();
    return workspace;
  }

  async findWorkspace(id: string): Promise<Workspace | null> {
    return isUuid(id) ? this.em.findOne(Workspace, { id }) : null;
  }

  /** Every workspace, oldest first. */
  async listWorkspaces(): Promise<Workspace[]> {
    return this.em.find(Workspace, {}, { orderBy: { createdAt: 'asc', id: 'asc' } });
  }

  /** The workspaces with exactly this name, oldest first (several only in databases from before names were unique). */
  async workspacesNamed(name: string): Promise<Workspace[]> {
    return this.em.find(Workspace, { name }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  }

  /**
   * The workspace with this id, else the one workspace with exactly this name. Where several
   * workspaces have it (made before `workspace create` refused a name in use), none is chosen
   * and they are returned to be named.
   */
  async lookUpWorkspace(idOrName: string): Promise<WorkspaceLookup> {
    const byId = await this.findWorkspace(idOrName);
    if (byId) return { found: byId };
    const named = await this.workspacesNamed(idOrName);
    return named.length === 1 ? { found: named[0] } : { found: null, sameName: named };
  }

  /** Whether any API key of any workspace has ever authenticated a request. */
  async anyKeyUsed(): Promise<boolean> {
    return (await this.em.count(ApiKeyUsage, {})) > 0;
  }

  /** The workspace's keys, oldest first, revoked ones included, each with its last use. */
  async listKeys(workspaceId: string): Promise<KeyView[]> {
    const keys = await this.em.find(ApiKey, { workspace: workspaceId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
    const usage = keys.length === 0 ? [] : await this.em.find(ApiKeyUsage, { key: { $in: keys.map((k) => k.id) } });
    const lastUse = new Map(usage.map((u) => [u.key, u.lastUsedAt]));
    return keys.map((k) => ({
      id: k.id,
      prefix: `${KEY_PREFIX}${k.lookup}`,
      name: k.name ?? null,
      createdAt: k.createdAt,
      lastUsedAt: lastUse.get(k.id) ?? null,
      revokedAt: k.revokedAt ?? null,
    }));
  }

  /** Issues a key; the plain key is returned once and never stored. */
  async createKey(workspaceId: string, name?: string): Promise<{ id: string; key: string }> {
    const generated = generateKey();
    const apiKey = this.em.create(ApiKey, { workspace: workspaceId, name: name ?? null, lookup: generated.lookup, secretHash: generated.secretHash });
    await this.em.flush();
    return { id: apiKey.id, key: generated.key };
  }

  /**
   * Revokes a key named by its id, by its public part (`dfk_<16 hex>`, as `key list` shows it) or
   * by the whole key; returns it, or null when no key matches. Revoking twice keeps the first
   * revocation time.
   */
  async revokeKeyByReference(reference: string): Promise<{ id: string; prefix: string } | null> {
    const lookup = parseKeyReference(reference);
    const where = isUuid(reference) ? { id: reference.toLowerCase() } : lookup ? { lookup } : null;
    const apiKey = where ? await this.em.findOne(ApiKey, where) : null;
    if (!apiKey) return null;
    apiKey.revokedAt ??= new Date();
    await this.em.flush();
    return { id: apiKey.id, prefix: `${KEY_PREFIX}${apiKey.lookup}` };
  }

  /** Returns false when no such key exists (see revokeKeyByReference). */
  async revokeKey(reference: string): Promise<boolean> {
    return (await this.revokeKeyByReference(reference)) !== null;
  }

  async addMember(workspaceId: string, userId: string, role: MemberRole): Promise<Member> {
    const existing = await this.em.findOne(Member, { workspace: workspaceId, userId });
    if (existing) {
      existing.role = role;
      await this.em.flush();
      return existing;
    }
    const member = this.em.create(Member, { workspace: workspaceId, userId, role });
    await this.em.flush();
    return member;
  }

  /**
   * The workspace's members and admins, in the order they were added, or by user id (compared
   * character by character, the same whatever the database's collation).
   */
  async listMembers(workspaceId: string, opts: { orderBy?: 'added' | 'userId' } = {}): Promise<Member[]> {
    const members = await this.em.find(Member, { workspace: workspaceId }, { orderBy: { createdAt: 'asc', userId: 'asc' } });
    return opts.orderBy === 'userId' ? members.sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0)) : members;
  }

  /** Returns false when the user was not a member. */
  async removeMember(workspaceId: string, userId: string): Promise<boolean> {
    const removed = await this.em.nativeDelete(Member, { workspace: workspaceId, userId });
    return removed > 0;
  }
}
