import { defineEntity, p } from '@mikro-orm/core';
import { Workspace } from '../workspaces/entity.ts';
import { IDEMPOTENCY_KEY_MAX_LENGTH } from './schema.ts';

/**
 * A client's Idempotency-Key, per workspace, with the request it was first used for and the
 * answer given to it. Inserted first in the transaction of the write it guards and completed
 * with the answer in that same transaction: a committed key always has its write and its
 * answer, and a write that rolled back leaves no key. Written and read with SQL by
 * IdempotencyService (the upsert decides who owns a key); declared here for the schema.
 */
const IdempotencyKeySchema = defineEntity({
  name: 'IdempotencyKey',
  tableName: 'idempotency_keys',
  properties: {
    workspace: () => p.manyToOne(Workspace).mapToPk().primary().deleteRule('cascade'),
    key: p.string().length(IDEMPOTENCY_KEY_MAX_LENGTH).primary(),
    method: p.string().length(10),
    path: p.text(),
    /** SHA-256 (hex) of the body as canonical JSON: key order and whitespace do not count. */
    bodyHash: p.string().length(64),
    /** The first answer; null only inside the transaction that is still writing it. */
    responseStatus: p.smallint().nullable(),
    responseBody: p.text().nullable(),
    /** The database's clock, so that every API process judges expiry alike. */
    createdAt: p.datetime(3),
  },
  indexes: [{ name: 'idempotency_keys_created_at_idx', properties: ['createdAt'] }],
});
export class IdempotencyKey extends IdempotencyKeySchema.class {}
IdempotencyKeySchema.setClass(IdempotencyKey);
