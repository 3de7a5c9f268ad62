import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationsList } from '../../src/db/migrations.ts';
import { openOrm } from '../../src/db/orm.ts';
import { ownDatabase } from '../helpers/server-process.ts';

/**
 * docs/operations.md, "Upgrading Deskflow": an upgrade applies the migrations first, then replaces the API and worker
 * processes in any order, so for a while processes of the previous release run on the new
 * schema. That holds while every migration only adds (expand): nothing an older process reads
 * or writes goes away, changes type, or starts refusing what it writes. Removing something
 * (contract) waits for a later release, once no running release uses it, and is listed in
 * CONTRACTIONS below with the reason.
 *
 * Applied one at a time to an empty database, each migration is compared with the schema before
 * it: tables, columns (type, length, nullability, default), check, unique and foreign-key
 * constraints, unique indexes, functions and triggers.
 */
const CONTRACTIONS: Record<string, string[]> = {
  // 'Migration2027…_drop_x': ['column tickets.x'],  // stopped being used by release …
};

type Column = { table: string; column: string; type: string; length: number | null; precision: number | null; nullable: boolean; default: string | null };
type Constraint = { table: string; name: string; kind: string; definition: string; columns: string[] };
type Schema = {
  tables: Set<string>;
  columns: Map<string, Column>;
  constraints: Map<string, Constraint>;
  uniqueIndexes: Map<string, { table: string; columns: string[] }>;
  functions: Set<string>;
  triggers: Set<string>;
};

async function snapshot(orm: MikroORM): Promise<Schema> {
  const em = orm.em.fork();
  const columns = await em.execute<Array<{ table_name: string; column_name: string; udt_name: string; character_maximum_length: number | null; numeric_precision: number | null; datetime_precision: number | null; is_nullable: string; column_default: string | null }>>(
    `select table_name, column_name, udt_name, character_maximum_length, numeric_precision, datetime_precision, is_nullable, column_default
       from information_schema.columns where table_schema = 'public' and table_name not like 'mikro_orm_%'`,
  );
  const constraints = await em.execute<Array<{ table_name: string; conname: string; contype: string; definition: string; columns: string[] | null }>>(
    `select c.conrelid::regclass::text as table_name, c.conname, c.contype, pg_get_constraintdef(c.oid) as definition,
            array(select a.attname::text from pg_attribute a where a.attrelid = c.conrelid and a.attnum = any(c.conkey) order by a.attname) as columns
       from pg_constraint c where c.connamespace = 'public'::regnamespace and c.conrelid <> 0 and c.contype in ('c', 'u', 'f', 'p')
        and c.conrelid::regclass::text not like 'mikro_orm_%'`,
  );
  const indexes = await em.execute<Array<{ index_name: string; table_name: string; columns: string[] }>>(
    `select i.indexrelid::regclass::text as index_name, i.indrelid::regclass::text as table_name,
            array(select a.attname::text from pg_attribute a where a.attrelid = i.indrelid and a.attnum = any(i.indkey) order by a.attname) as columns
       from pg_index i join pg_class t on t.oid = i.indrelid
      where t.relnamespace = 'public'::regnamespace and i.indisunique and not i.indisprimary and t.relname not like 'mikro_orm_%'`,
  );
  const functions = await em.execute<Array<{ proname: string }>>(`select proname from pg_proc where pronamespace = 'public'::regnamespace`);
  const triggers = await em.execute<Array<{ name: string }>>(
    `select tgrelid::regclass::text || '.' || tgname as name from pg_trigger t join pg_class c on c.oid = t.tgrelid
      where not t.tgisinternal and c.relnamespace = 'public'::regnamespace`,
  );
  return {
    tables: new Set(columns.map((c) => c.table_name)),
    columns: new Map(
      columns.map((c) => [
        `${c.table_name}.${c.column_name}`,
        {
          table: c.table_name,
          column: c.column_name,
          type: c.udt_name,
          length: c.character_maximum_length,
          precision: c.numeric_precision ?? c.datetime_precision,
          nullable: c.is_nullable === 'YES',
          default: c.column_default,
        },
      ]),
    ),
    constraints: new Map(constraints.map((c) => [`${c.table_name}.${c.conname}`, { table: c.table_name, name: c.conname, kind: c.contype, definition: c.definition, columns: c.columns ?? [] }])),
    uniqueIndexes: new Map(indexes.map((i) => [i.index_name, { table: i.table_name, columns: i.columns }])),
    functions: new Set(functions.map((f) => f.proname)),
    triggers: new Set(triggers.map((t) => t.name)),
  };
}

/** The values a check `col in (…)` allows, as PostgreSQL prints it (`= ANY (ARRAY[…])`, or `= '…'` for one); null for any other check. */
function inListValues(definition: string): { column: string; values: Set<string> } | null {
  const match = /^CHECK \(\((\w+) = (?:ANY \(ARRAY\[(.*)\]\)|('(?:[^']|'')*'::\w+))\)\)$/.exec(definition);
  if (!match) return null;
  return { column: match[1], values: new Set([...(match[2] ?? match[3]).matchAll(/'((?:[^']|'')*)'::/g)].map((m) => m[1])) };
}

/** What `next` takes away from, or newly refuses to, a process written for `before`; empty when it only adds. */
function contractions(before: Schema, next: Schema): string[] {
  const found: string[] = [];
  const isOldColumn = (table: string, column: string) => before.columns.has(`${table}.${column}`);
  const touchesOld = (table: string, columns: string[]) => before.tables.has(table) && columns.some((column) => isOldColumn(table, column));

  for (const table of before.tables) if (!next.tables.has(table)) found.push(`table ${table} dropped or renamed`);
  for (const [key, old] of before.columns) {
    const now = next.columns.get(key);
    if (!now) {
      if (next.tables.has(old.table)) found.push(`column ${key} dropped or renamed`);
      continue;
    }
    if (now.type !== old.type || now.precision !== old.precision) found.push(`column ${key} changed type (${old.type} → ${now.type})`);
    if (old.length !== null && (now.length === null ? false : now.length < old.length)) found.push(`column ${key} got shorter (${old.length} → ${now.length})`);
    if (old.nullable && !now.nullable) found.push(`column ${key} became not null`);
    if (old.default !== null && now.default === null) found.push(`column ${key} lost its default`);
  }
  for (const [key, now] of next.columns) {
    if (before.columns.has(key) || !before.tables.has(now.table)) continue;
    if (!now.nullable && now.default === null) found.push(`column ${key} added to ${now.table} as not null without a default: older processes insert rows without it`);
  }
  for (const [key, now] of next.constraints) {
    const old = before.constraints.get(key);
    if (old && old.definition === now.definition) continue;
    if (!touchesOld(now.table, now.columns)) continue;
    if (now.kind === 'c' && old) {
      const [was, is] = [inListValues(old.definition), inListValues(now.definition)];
      if (was && is && was.column === is.column && [...was.values].every((v) => is.values.has(v))) continue; // an enum widened
    }
    found.push(`constraint ${key} (${now.definition}) ${old ? 'changed' : 'added'} on what older processes write`);
  }
  for (const [name, now] of next.uniqueIndexes) {
    if (before.uniqueIndexes.has(name) || [...next.constraints.values()].some((c) => c.name === name)) continue;
    if (touchesOld(now.table, now.columns)) found.push(`unique index ${name} added on what older processes write`);
  }
  for (const fn of before.functions) if (!next.functions.has(fn)) found.push(`function ${fn} dropped`);
  for (const trigger of before.triggers) if (!next.triggers.has(trigger)) found.push(`trigger ${trigger} dropped`);
  return found;
}

let database: { url: string; drop: () => Promise<void> };
let orm: MikroORM;
beforeAll(async () => {
  database = await ownDatabase('expand_only');
  // ownDatabase migrated it: start again from an empty schema.
  const reset = await openOrm({ databaseUrl: database.url, poolMax: 1 });
  await reset.em.fork().execute('drop schema public cascade; create schema public;');
  await reset.close();
  orm = await openOrm({ databaseUrl: database.url, poolMax: 2 });
}, 120_000);
afterAll(async () => {
  await orm?.close();
  await database?.drop();
});

describe('migrations', () => {
  it('only add: no migration drops, renames or retypes what an older process uses, or makes it refuse what one writes', async () => {
    let before = await snapshot(orm);
    const report: Record<string, string[]> = {};
    for (const migration of migrationsList) {
      await orm.migrator.up({ to: migration.name });
      const next = await snapshot(orm);
      const found = contractions(before, next);
      const allowed = CONTRACTIONS[migration.name] ?? [];
      const unexpected = found.filter((f) => !allowed.some((a) => f.startsWith(a)));
      if (unexpected.length > 0) report[migration.name] = unexpected;
      before = next;
    }
    expect(report).toEqual({});
    expect(await orm.migrator.getPending()).toEqual([]);
  }, 120_000);

  it('the check finds a drop, a rename, a retype, a new or newly not-null column, a lost default and a narrowed enum', async () => {
    const em = orm.em.fork();
    const before = await snapshot(orm);
    await em.execute(`create table "compat_probe" ("id" uuid primary key, "kind" text not null check ("kind" in ('a', 'b')), "note" varchar(20) null, "gone" int null)`);
    const withProbe = await snapshot(orm);
    expect(contractions(before, withProbe)).toEqual([]);
    try {
      await em.execute(`alter table "compat_probe" drop column "gone"`);
      await em.execute(`alter table "compat_probe" rename column "note" to "notes"`);
      await em.execute(`alter table "compat_probe" add "required" int not null default 0`);
      const changed = await snapshot(orm);
      expect(contractions(withProbe, changed).sort()).toEqual(['column compat_probe.gone dropped or renamed', 'column compat_probe.note dropped or renamed']);
      await em.execute(`alter table "compat_probe" alter column "id" type text`);
      await em.execute(`alter table "compat_probe" drop constraint "compat_probe_kind_check", add constraint "compat_probe_kind_check" check ("kind" in ('a'))`);
      await em.execute(`alter table "compat_probe" add "later" int not null`);
      await em.execute(`alter table "compat_probe" alter column "notes" set not null, alter column "required" drop default`);
      expect(contractions(changed, await snapshot(orm)).sort()).toEqual([
        'column compat_probe.id changed type (uuid → text)',
        'column compat_probe.later added to compat_probe as not null without a default: older processes insert rows without it',
        'column compat_probe.notes became not null',
        'column compat_probe.required lost its default',
        `constraint compat_probe.compat_probe_kind_check (CHECK ((kind = 'a'::text))) changed on what older processes write`,
      ]);
      // Widening the enum is fine.
      const narrow = await snapshot(orm);
      await em.execute(`alter table "compat_probe" drop constraint "compat_probe_kind_check", add constraint "compat_probe_kind_check" check ("kind" in ('a', 'b', 'c'))`);
      expect(contractions(narrow, await snapshot(orm))).toEqual([]);
    } finally {
      await em.execute(`drop table if exists "compat_probe"`);
    }
  });
});
