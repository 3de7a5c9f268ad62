import type pg from 'pg';
import { addMessage, authenticate, createTicket, getTicket, listTickets } from './ceiling-sql.ts';
import type { HttpCall } from './load.ts';

/**
 * The benchmarked requests. Each is one HTTP call (sent alike to Deskflow and to the bare
 * `node:http` ceiling) and the same work as SQL through `pg` with no HTTP (the raw ceiling,
 * API-key lookup included). To benchmark another request, add one here.
 */
export type Scenario = {
  id: string;
  label: string;
  http: (i: number) => HttpCall;
  sql: (db: pg.Pool, i: number) => Promise<void>;
};

export type ScenarioContext = {
  key: string;
  /** Existing tickets of the workspace, the targets of gets and replies. */
  tickets: Array<{ id: string; email: string }>;
  perPage: number;
  deepPage: number;
};

const BODY =
  'Since this morning the printer on the third floor shows error E-42 and feeds no paper. ' +
  'We restarted it twice and replaced the toner; the error comes back after a minute. ' +
  'Forty people depend on it, so please treat this as urgent. Serial number PX-2231-88.';

export function newTicketBody(i: number) {
  return {
    subject: `Bench ticket ${i}: printer error E-42`,
    customerEmail: `customer${i % 10_000}@example.com`,
    customerName: `Customer ${i % 10_000}`,
    body: BODY,
    source: 'email' as const,
    language: 'en',
  };
}

export function scenarios(ctx: ScenarioContext): Scenario[] {
  const ticket = (i: number) => ctx.tickets[i % ctx.tickets.length];
  const workspace = async (db: pg.Pool) => {
    const id = await authenticate(db, ctx.key);
    if (!id) throw new Error('the API key was not accepted');
    return id;
  };
  const list = (page: number): Pick<Scenario, 'http' | 'sql'> => ({
    http: () => ({ method: 'GET', path: `/api/v1/tickets?page=${page}&per_page=${ctx.perPage}`, expect: 200 }),
    sql: async (db) => {
      const { tickets } = await listTickets(db, await workspace(db), page, ctx.perPage);
      if (tickets.length === 0) throw new Error(`page ${page} is empty`);
    },
  });
  return [
    {
      id: 'get_ticket',
      label: 'get ticket',
      http: (i) => ({ method: 'GET', path: `/api/v1/tickets/${ticket(i).id}`, expect: 200 }),
      sql: async (db, i) => {
        if (!(await getTicket(db, await workspace(db), ticket(i).id))) throw new Error('ticket not found');
      },
    },
    { id: 'list_first_page', label: 'list tickets, page 1', ...list(1) },
    { id: 'list_deep_page', label: `list tickets, page ${ctx.deepPage}`, ...list(ctx.deepPage) },
    {
      id: 'add_message',
      label: 'add message',
      http: (i) => ({
        method: 'POST',
        path: `/api/v1/tickets/${ticket(i).id}/messages`,
        body: { body: `Still broken (${i}).`, senderEmail: ticket(i).email },
        expect: 201,
      }),
      sql: async (db, i) => {
        const added = await addMessage(db, await workspace(db), ticket(i).id, { body: `Still broken (${i}).`, senderEmail: ticket(i).email });
        if (!added) throw new Error('ticket not found');
      },
    },
    {
      id: 'create_ticket',
      label: 'create ticket',
      http: (i) => ({ method: 'POST', path: '/api/v1/tickets', body: newTicketBody(i), expect: 201 }),
      sql: async (db, i) => {
        await createTicket(db, await workspace(db), newTicketBody(i));
      },
    },
  ];
}
