/**
 * The statement triggers that keep a counter table of `table` (ticket_counts, execution_counts)
 * by calling `fn` with the changed rows as transition tables `new_<table>` and `old_<table>`.
 * Created with their function by a migration; declared on the entity so that the schema diff
 * keeps them.
 */
export function countTriggers(table: string, fn: string) {
  return (['insert', 'update', 'delete'] as const).map((event) => ({
    name: `${table}_count_${event}`,
    timing: 'after' as const,
    events: [event],
    forEach: 'statement' as const,
    expression:
      `create trigger "${table}_count_${event}" after ${event} on "${table}" referencing ` +
      (event === 'insert' ? `new table as "new_${table}"` : event === 'delete' ? `old table as "old_${table}"` : `old table as "old_${table}" new table as "new_${table}"`) +
      ` for each statement execute function "${fn}"()`,
  }));
}
