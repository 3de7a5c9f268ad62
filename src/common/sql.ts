import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';

/**
 * Runs one statement with bound parameters ($1, $2, …) through MikroORM's own connection, in the
 * transaction of `em` when it is in one. For the statements every request runs (reading and
 * writing tickets, messages, events): building them through the ORM costs several times the
 * statement itself, and `em.execute` inlines the values into the SQL text (no plan reuse,
 * escaping a 100,000-character body). Errors come out as MikroORM's own exception classes.
 */
export async function sql<R = Record<string, unknown>>(em: EntityManager, text: string, parameters: readonly unknown[] = []): Promise<R[]> {
  try {
    const { rows } = await em.getKysely<unknown>().executeQuery<R>(CompiledQuery.raw(text, [...parameters]));
    return rows;
  } catch (err) {
    throw em.getPlatform().getExceptionConverter().convertException(err as Error);
  }
}

/**
 * A timestamptz as MikroORM's connection returns it (PostgreSQL's text, e.g.
 * `2026-11-23 17:58:53.076+00`; it leaves the conversion to the ORM) as a Date.
 */
export function pgTimestamp(value: string | Date): Date {
  if (value instanceof Date) return value;
  const iso = value.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00');
  return new Date(iso);
}
