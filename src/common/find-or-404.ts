import type { EntityClass, EntityManager, FilterQuery, FindOneOptions } from '@mikro-orm/postgresql';
import { notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';

/**
 * The entity with this id that also matches `where` (its workspace, say), or a 404 naming
 * `what`. Ids are UUIDs: anything else names nothing, so it is a 404 too, never a database
 * error. A resource of another workspace is indistinguishable from an unknown one.
 */
export async function findOr404<T extends object>(
  em: EntityManager,
  entity: EntityClass<T>,
  id: string,
  where: FilterQuery<T>,
  what: string,
  options?: FindOneOptions<T, any, any, any>,
): Promise<T> {
  const found = isUuid(id) ? await em.findOne(entity as EntityClass<Record<string, unknown>>, { ...(where as object), id }, options as FindOneOptions<Record<string, unknown>>) : null;
  if (!found) throw notFound(what);
  return found as T;
}
