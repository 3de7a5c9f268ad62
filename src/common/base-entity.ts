import { defineEntity, p } from '@mikro-orm/core';
import { newId } from '../ids.ts';

/** A UUID primary key filled in when the entity is created (MikroORM runs onCreate at em.create). */
export const primaryId = () => p.uuid().primary().onCreate(() => newId());

/** A creation time filled in when the entity is created. */
export const createdAt = () => p.datetime(3).onCreate(() => new Date());

/**
 * What every entity with a single id shares: a UUID and a creation time, both filled in by
 * `em.create`, so services pass only what the entity is about. Give `createdAt` explicitly
 * where several rows must carry the same instant (a ticket and its first message).
 */
const BaseSchema = defineEntity({
  name: 'BaseEntity',
  abstract: true,
  properties: {
    id: primaryId(),
    createdAt: createdAt(),
  },
});
export abstract class BaseEntity extends BaseSchema.class {}
BaseSchema.setClass(BaseEntity);
