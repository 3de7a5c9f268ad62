import type { MikroORM } from '@mikro-orm/postgresql';
import { sql } from '../common/sql.ts';
import { parseSnapshot, START, type Cursor, type Position, type Snapshot } from './cursor.ts';
import { STREAMED_TYPES, type OutboxRow } from './events.ts';

/**
 * The outbox as the event feed reads it: in (txid, created_at, id) order, and only rows whose
 * writing transaction is below the oldest one still running
 * (`pg_snapshot_xmin(pg_current_snapshot())`). Every transaction below that line has ended, so
 * nothing can still commit before a row read here: an event a long transaction commits late
 * waits in the order until it can be read, and is never passed over by a cursor. Every query
 * reads the index outbox_events_feed_idx.
 */
export interface FeedSource {
  /** The position of the last row that can be read now (START when there is none). */
  head(): Promise<Position>;
  /**
   * Up to `limit` rows after `from`, of every workspace (with their payloads only for streamed
   * types of `workspaceIds`), and whether committed rows wait behind a transaction still running.
   */
  after(from: Position, limit: number, workspaceIds: readonly string[]): Promise<{ rows: OutboxRow[]; heldBack: boolean }>;
  /** The payloads of these rows, by id. */
  payloads(ids: readonly string[]): Promise<Map<string, Record<string, unknown>>>;
  /** Up to `limit` streamed rows of one workspace after `from`, up to and including `upTo`. */
  between(workspaceId: string, from: Position, upTo: Position, limit: number): Promise<OutboxRow[]>;
  /**
   * Where a cursor of the workspace stands: its row's position; for a row no longer held (purged
   * after its retention) the place it had, before the rows of its transaction that are left;
   * null for a cursor that names no event of the workspace's feed.
   */
  locate(workspaceId: string, cursor: Cursor): Promise<Position | null>;
  /** Which transactions have committed by now. */
  snapshot(): Promise<Snapshot>;
}

type Row = { id: string; workspace_id: string; type: string; ticket_id: string | null; payload: Record<string, unknown> | null; txid: string; at_ms: string };

const HORIZON = 'pg_snapshot_xmin(pg_current_snapshot())';
const COLUMNS = `"id", "workspace_id", "type", "ticket_id", "txid"::text as "txid", (extract(epoch from "created_at") * 1000)::bigint::text as "at_ms"`;
const AFTER = `("txid", "created_at", "id") > ($1::xid8, $2::timestamptz, $3::uuid)`;

const params = (p: Position) => [p.txid.toString(), Number.isFinite(p.at) ? new Date(p.at).toISOString() : '-infinity', p.id];
const positionOf = (r: { txid: string; at_ms: string; id: string }): Position => ({ txid: BigInt(r.txid), at: Number(r.at_ms), id: r.id });
const toRow = (r: Row): OutboxRow => ({ position: positionOf(r), workspaceId: r.workspace_id, type: r.type, ticketId: r.ticket_id, payload: r.payload });

export class OutboxFeedSource implements FeedSource {
  private readonly orm: MikroORM;

  constructor(orm: MikroORM) {
    this.orm = orm;
  }

  async head(): Promise<Position> {
    const [last] = await sql<Row>(
      this.orm.em.fork(),
      `select ${COLUMNS} from "outbox_events" where "txid" < ${HORIZON} order by "txid" desc, "created_at" desc, "id" desc limit 1`,
    );
    return last ? positionOf(last) : START;
  }

  async after(from: Position, limit: number, workspaceIds: readonly string[]): Promise<{ rows: OutboxRow[]; heldBack: boolean }> {
    // One statement, one snapshot: the rows below the horizon, and whether rows wait above it.
    const rows = await sql<Row & { held_back: boolean }>(
      this.orm.em.fork(),
      `select h."held_back", r.* from (select exists (select 1 from "outbox_events" where "txid" >= ${HORIZON}) as "held_back") h
         left join lateral (
           select ${COLUMNS}, case when "type" = any($5) and "workspace_id" = any($6) then "payload" end as "payload"
             from "outbox_events"
            where ${AFTER} and "txid" < ${HORIZON}
            order by "txid", "created_at", "id" limit $4
         ) r on true
        order by r."txid"::xid8, r."at_ms"::bigint, r."id"`,
      [...params(from), limit, STREAMED_TYPES, workspaceIds],
    );
    return { rows: rows.filter((r) => r.id !== null).map(toRow), heldBack: rows[0]?.held_back ?? false };
  }

  async payloads(ids: readonly string[]): Promise<Map<string, Record<string, unknown>>> {
    const rows = await sql<{ id: string; payload: Record<string, unknown> }>(this.orm.em.fork(), `select "id", "payload" from "outbox_events" where "id" = any($1)`, [ids]);
    return new Map(rows.map((r) => [r.id, r.payload]));
  }

  async between(workspaceId: string, from: Position, upTo: Position, limit: number): Promise<OutboxRow[]> {
    const rows = await sql<Row>(
      this.orm.em.fork(),
      `select ${COLUMNS}, "payload" from "outbox_events"
        where ${AFTER} and ("txid", "created_at", "id") <= ($4::xid8, $5::timestamptz, $6::uuid)
          and "workspace_id" = $7 and "type" = any($8)
        order by "txid", "created_at", "id" limit $9`,
      [...params(from), ...params(upTo), workspaceId, STREAMED_TYPES, limit],
    );
    return rows.map(toRow);
  }

  async snapshot(): Promise<Snapshot> {
    const [row] = await sql<{ snapshot: string }>(this.orm.em.fork(), `select pg_current_snapshot()::text as "snapshot"`);
    return parseSnapshot(row.snapshot);
  }

  async locate(workspaceId: string, cursor: Cursor): Promise<Position | null> {
    const [found] = await sql<{ horizon: string; workspace_id: string | null; txid: string | null; at_ms: string | null; id: string | null }>(
      this.orm.em.fork(),
      `select ${HORIZON}::text as "horizon", e."workspace_id", e."txid"::text as "txid", (extract(epoch from e."created_at") * 1000)::bigint::text as "at_ms", e."id"
         from (select 1) one left join "outbox_events" e on e."id" = $1`,
      [cursor.id],
    );
    if (found.id !== null) {
      if (found.workspace_id !== workspaceId || found.txid === null || BigInt(found.txid) !== cursor.txid) return null;
      return positionOf({ txid: found.txid, at_ms: found.at_ms!, id: found.id });
    }
    // The feed only ever hands out cursors of transactions below the horizon of their time; a
    // cursor at or above today's horizon was never one of its own.
    if (cursor.txid >= BigInt(found.horizon)) return null;
    return { txid: cursor.txid, at: -Infinity, id: START.id };
  }
}
