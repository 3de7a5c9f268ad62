import { defineEntity, p } from '@mikro-orm/core';

const WorkspaceSchema = defineEntity({
  name: 'Workspace',
  tableName: 'workspaces',
  properties: {
    id: p.uuid().primary(),
    name: p.string().length(200),
    /** CONTRACT §3: a customer reply reopens a pending or solved ticket (on by default). */
    reopenOnCustomerReply: p.boolean().default(true),
    createdAt: p.datetime(3),
  },
});
export class Workspace extends WorkspaceSchema.class {}
WorkspaceSchema.setClass(Workspace);

const ApiKeySchema = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.uuid().primary(),
    workspace: () => p.manyToOne(Workspace).mapToPk().deleteRule('cascade').index(),
    name: p.string().length(200).nullable(),
    /** Public part of the key, used to find the row; the secret is only stored hashed. */
    lookup: p.string().length(32).unique(),
    secretHash: p.string().length(64),
    createdAt: p.datetime(3),
    revokedAt: p.datetime(3).nullable(),
  },
});
export class ApiKey extends ApiKeySchema.class {}
ApiKeySchema.setClass(ApiKey);

export const MEMBER_ROLES = ['member', 'admin'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

const MemberSchema = defineEntity({
  name: 'Member',
  tableName: 'members',
  properties: {
    workspace: () => p.manyToOne(Workspace).mapToPk().primary().deleteRule('cascade'),
    userId: p.string().length(200).primary(),
    role: p.enum(MEMBER_ROLES),
    createdAt: p.datetime(3),
  },
});
export class Member extends MemberSchema.class {}
MemberSchema.setClass(Member);
