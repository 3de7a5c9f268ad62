import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey, Member, type MemberRole, Workspace } from './entity.ts';
import { generateKey } from './keys.ts';
import { isUuid } from '../ids.ts';

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

  /** Issues a key; the plain key is returned once and never stored. */
  async createKey(workspaceId: string, name?: string): Promise<{ id: string; key: string }> {
    const generated = generateKey();
    const apiKey = this.em.create(ApiKey, { workspace: workspaceId, name: name ?? null, lookup: generated.lookup, secretHash: generated.secretHash });
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

  /** Returns false when the user was not a member. */
  async removeMember(workspaceId: string, userId: string): Promise<boolean> {
    const removed = await this.em.nativeDelete(Member, { workspace: workspaceId, userId });
    return removed > 0;
  }
}
