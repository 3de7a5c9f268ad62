import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey, Member, type MemberRole, Workspace } from './entity.ts';
import { generateKey, parseKey, secretMatches } from './keys.ts';
import { AI_ASSIGNEE } from '../tickets/values.ts';
import { isUuid, newId } from '../ids.ts';

/** Workspaces, their API keys and their members. Used by the HTTP auth layer and the admin CLI. */
export class WorkspaceService {
  private readonly em: EntityManager;

  constructor(em: EntityManager) {
    this.em = em;
  }

  async createWorkspace(name: string): Promise<Workspace> {
    const workspace = this.em.create(Workspace, { id: newId(), name, reopenOnCustomerReply: true, createdAt: new Date() });
    await this.em.flush();
    return workspace;
  }

  async findWorkspace(id: string): Promise<Workspace | null> {
    return isUuid(id) ? this.em.findOne(Workspace, { id }) : null;
  }

  /** Issues a key; the plain key is returned once and never stored. */
  async createKey(workspaceId: string, name?: string): Promise<{ id: string; key: string }> {
    const generated = generateKey();
    const apiKey = this.em.create(ApiKey, {
      id: newId(),
      workspace: workspaceId,
      name: name ?? null,
      lookup: generated.lookup,
      secretHash: generated.secretHash,
      createdAt: new Date(),
      revokedAt: null,
    });
    await this.em.flush();
    return { id: apiKey.id, key: generated.key };
  }

  /** Returns false when no such key exists. Revoking twice keeps the first revocation time. */
  async revokeKey(keyId: string): Promise<boolean> {
    if (!isUuid(keyId)) return false;
    const apiKey = await this.em.findOne(ApiKey, { id: keyId });
    if (!apiKey) return false;
    apiKey.revokedAt ??= new Date();
    await this.em.flush();
    return true;
  }

  /** The workspace id bound to a presented key, or null for a malformed, unknown or revoked key. */
  async authenticate(presented: string): Promise<string | null> {
    const parsed = parseKey(presented);
    if (!parsed) return null;
    const apiKey = await this.em.findOne(ApiKey, { lookup: parsed.lookup }, { fields: ['workspace', 'secretHash', 'revokedAt'] });
    if (!apiKey || apiKey.revokedAt || !secretMatches(parsed.secret, apiKey.secretHash)) return null;
    return apiKey.workspace;
  }

  async addMember(workspaceId: string, userId: string, role: MemberRole): Promise<Member> {
    const existing = await this.em.findOne(Member, { workspace: workspaceId, userId });
    if (existing) {
      existing.role = role;
      await this.em.flush();
      return existing;
    }
    const member = this.em.create(Member, { workspace: workspaceId, userId, role, createdAt: new Date() });
    await this.em.flush();
    return member;
  }

  /** Returns false when the user was not a member. */
  async removeMember(workspaceId: string, userId: string): Promise<boolean> {
    const removed = await this.em.nativeDelete(Member, { workspace: workspaceId, userId });
    return removed > 0;
  }

  /** True when `assignee` may own tickets of the workspace: the AI sentinel or a current member/admin. */
  async isAssignable(workspaceId: string, assignee: string): Promise<boolean> {
    if (assignee === AI_ASSIGNEE) return true;
    const count = await this.em.count(Member, { workspace: workspaceId, userId: assignee });
    return count > 0;
  }
}
