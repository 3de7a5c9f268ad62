import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';
import { commitSignalsOf } from './commit-signals.ts';

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
 * A statement with its bound parameters ($1, $2, … of its own). `wakes`: a channel whose
 * listeners wait for the rows it writes, notified once they have committed (CommitSignals).
 */
export type Statement = { text: string; parameters: unknown[]; wakes?: string };

/**
 * Runs data-modifying statements (inserts, updates of different tables) as one statement
 * (`combined`): one round trip instead of one each, and atomic as any single statement is,
 * also outside a transaction.
 */
export async function writeTogether(em: EntityManager, statements: Statement[]): Promise<void> {
  if (statements.length === 0) return;
  const { text, parameters } = combined(statements);
  await sql(em, text, parameters);
  for (const channel of new Set(statements.flatMap((s) => (s.wakes ? [s.wakes] : [])))) {
    await commitSignalsOf(em)?.written(em, channel, () => sql(em, `select pg_notify($1, '')`, [channel]));
  }
}

/**
 * Data-modifying statements as one: all but the last become the WITH clauses of the last,
 * their parameters numbered on. They see the database as it was before all of them (a later
 * one cannot read what an earlier one wrote); constraints are checked once all have run.
 */
export function combined(statements: Statement[]): Statement {
  const parameters: unknown[] = [];
  const texts = statements.map(({ text, parameters: own }) => {
    const offset = parameters.length;
    parameters.push(...own);
    return offset === 0 ? text : text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
  });
  const last = texts.pop()!;
  return { text: texts.length === 0 ? last : `with ${texts.map((text, i) => `"w${i}" as (${text})`).join(', ')} ${last}`, parameters };
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

/**
 * Runs `work` in the transaction `em` is in, or in a transaction of its own when it is in none.
 * For a service's write that callers also make inside a transaction of their own (a run's action
 * with its step, an idempotent request with its key, a mail with its record): joining it costs
 * nothing where a nested transaction would add a savepoint and its release, and every such caller
 * lets an error end its whole transaction anyway.
 */
export function inCallersTransaction<T>(em: EntityManager, work: (em: EntityManager) => Promise<T>): Promise<T> {
  return em.isInTransaction() ? work(em) : em.transactional(work);
}
