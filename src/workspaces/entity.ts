import { defineEntity, p } from '@mikro-orm/core';
import { BaseEntity, createdAt } from '../common/base-entity.ts';

const WorkspaceSchema = defineEntity({
  name: 'Workspace',
  tableName: 'workspaces',
  extends: BaseEntity,
  properties: {
    name: p.string().length(200),
    /** docs/contract.md §3: a customer reply reopens a pending or solved ticket (on by default). */
    reopenOnCustomerReply: p.boolean().default(true),
  },
});
export class Workspace extends WorkspaceSchema.class {}
WorkspaceSchema.setClass(Workspace);

const ApiKeySchema = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  extends: BaseEntity,
  properties: {
    workspace: () => p.manyToOne(Workspace).mapToPk().deleteRule('cascade').index(),
    name: p.string().length(200).nullable(),
    /** Public part of the key, used to find the row; the secret is only stored hashed. */
    lookup: p.string().length(32).unique(),
    secretHash: p.string().length(64),
    revokedAt: p.datetime(3).nullable(),
  },
  // API processes keep keys in memory (src/workspaces/key-cache.ts) and drop one when this
  // notifies its lookup. Created with its function by a migration; declared here so that the
  // schema diff keeps it.
  triggers: [
    {
      name: 'api_keys_notify',
      timing: 'after',
      events: ['update', 'delete'],
      forEach: 'row',
      expression: 'create trigger "api_keys_notify" after update or delete on "api_keys" for each row execute function "deskflow_notify_api_key"()',
    },
  ],
});
export class ApiKey extends ApiKeySchema.class {}
ApiKeySchema.setClass(ApiKey);

/**
 * When each key was last used, for operators deciding which keys to revoke (`key list`). Kept
 * apart from api_keys, whose every update tells each API process to drop the key from memory,
 * and written at most once a minute per key (src/workspaces/key-usage.ts).
 */
const ApiKeyUsageSchema = defineEntity({
  name: 'ApiKeyUsage',
  tableName: 'api_key_usage',
  properties: {
    key: () => p.oneToOne(ApiKey).mapToPk().primary().fieldName('key_id').deleteRule('cascade').owner(),
    lastUsedAt: p.datetime(3),
  },
});
export class ApiKeyUsage extends ApiKeyUsageSchema.class {}
ApiKeyUsageSchema.setClass(ApiKeyUsage);

export const MEMBER_ROLES = ['member', 'admin'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

const MemberSchema = defineEntity({
  name: 'Member',
  tableName: 'members',
  properties: {
    workspace: () => p.manyToOne(Workspace).mapToPk().primary().deleteRule('cascade'),
    userId: p.string().length(200).primary(),
    role: p.enum(MEMBER_ROLES),
    createdAt: createdAt(),
  },
});
export class Member extends MemberSchema.class {}
MemberSchema.setClass(Member);
