import type { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ACTOR } from '../../src/actor.ts';
import { sql, writeTogether } from '../../src/common/sql.ts';
import { openOrm } from '../../src/db/orm.ts';
import { eventsInsert, OUTBOX_CHANNEL } from '../../src/events/outbox.ts';
import { createServices } from '../../src/services.ts';
import { WorkspaceService } from '../../src/workspaces/service.ts';
import { ownDatabase } from '../helpers/server-process.ts';

/**
 * The relays wake on `deskflow_outbox` when new events have committed. Deskflow's connections
 * send the notification after their commit (src/common/commit-signals.ts), so that commits of
 * events are not queued behind each other by PostgreSQL's notification lock; other writers
 * (an earlier release, psql) are notified for by the outbox's trigger. Either way a listener
 * that hears the notification finds the events.
 */
let database: { url: string; drop: () => Promise<void> };
let orm: MikroORM;
let workspaceId: string;
let listener: pg.Client;
let heard: Array<() => void> = [];
beforeAll(async () => {
  // A database of its own: no other test's events notify here.
  database = await ownDatabase('outbox_wakeups');
  orm = await openOrm({ databaseUrl: database.url, poolMax: 4 });
  workspaceId = (await new WorkspaceService(orm.em.fork()).createWorkspace('wakeups')).id;
  listener = new pg.Client({ connectionString: database.url });
  await listener.connect();
  await listener.query(`listen ${OUTBOX_CHANNEL}`);
  listener.on('notification', () => {
    const waiting = heard;
    heard = [];
    for (const resolve of waiting) resolve();
  });
});
afterAll(async () => {
  await listener?.end();
  await orm?.close();
  await database?.drop();
});

const createTicket = async () =>
  (await createServices(orm.em.fork()).tickets.create(workspaceId, { subject: 'Printer on fire', customerEmail: 'casey@example.com', body: 'Smoke.' }, API_ACTOR)).ticket.id;

/** Resolves at the next notification on the channel, with what the database holds for `ticketId` then. */
function nextWakeup(ticketId: () => string | undefined): Promise<number> {
  return new Promise((resolve) => {
    heard.push(async () => {
      const id = ticketId();
      const { rows } = await listener.query('select count(*)::int as n from outbox_events where ticket_id = $1', [id ?? '00000000-0000-4000-8000-000000000000']);
      resolve(rows[0].n);
    });
  });
}

describe('waking the relays', () => {
  it('a new ticket wakes them once it has committed: its event is there', async () => {
    let ticketId: string | undefined;
    const woken = nextWakeup(() => ticketId);
    ticketId = await createTicket();
    expect(await woken).toBe(1);
  });

  it('events written in a transaction wake them after the commit, not before', async () => {
    const ticketId = await createTicket();
    await new Promise((resolve) => setTimeout(resolve, 200)); // the create's own wake-up is past
    let notifiedDuringTransaction = false;
    const early = () => (notifiedDuringTransaction = true);
    const woken = new Promise<number>((resolve) => {
      heard.push(early, async () => {
        const { rows } = await listener.query('select count(*)::int as n from outbox_events where ticket_id = $1', [ticketId]);
        resolve(rows[0].n);
      });
    });
    await orm.em.fork().transactional(async (em) => {
      const event = { workspaceId, ticketId, payload: {}, actor: API_ACTOR, at: new Date() };
      await writeTogether(em, [eventsInsert([{ ...event, type: 'ticket_updated' }, { ...event, type: 'tag_added' }])]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(notifiedDuringTransaction).toBe(false);
    });
    expect(await woken).toBe(3);
  });

  it("Deskflow's connections tell the trigger to leave it to them; other writers are notified for by the trigger", async () => {
    const [setting] = await sql<{ value: string }>(orm.em.fork(), `select current_setting('deskflow.outbox_notify', true) as value`);
    expect(setting.value).toBe('after-commit');

    const ticketId = await createTicket();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const woken = nextWakeup(() => ticketId);
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      await other.query(`insert into outbox_events (id, workspace_id, type, ticket_id, payload, created_at, attempts) values (gen_random_uuid(), $1, 'ticket_updated', $2, '{}', now(), 0)`, [workspaceId, ticketId]);
    } finally {
      await other.end();
    }
    expect(await woken).toBe(2);
  });
});
