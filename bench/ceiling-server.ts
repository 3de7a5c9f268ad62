import http from 'node:http';
import { addMessage, authenticate, ceilingPool, createTicket, getTicket, listTickets, presentCreatedTicket, presentTicket, type NewMessage, type NewTicket } from './ceiling-sql.ts';

/**
 * The bare-HTTP ceiling: Deskflow's benchmarked routes on `node:http` with no framework, each
 * running exactly Deskflow's SQL (ceiling-sql.ts) on a pool of the same size. Run as a process
 * of its own, like the API: `node bench/ceiling-server.ts` with DATABASE_URL, PORT and
 * POOL_MAX; prints "listening" once it accepts connections.
 */
const db = ceilingPool(process.env.DATABASE_URL!, Number(process.env.POOL_MAX ?? 10));
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;
const TICKET_PATH = /^\/api\/v1\/tickets\/([0-9a-f-]{36})$/;
const MESSAGES_PATH = /^\/api\/v1\/tickets\/([0-9a-f-]{36})\/messages$/;

async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const key = BEARER.exec(req.headers.authorization ?? '')?.[1];
  const workspaceId = key ? await authenticate(db, key) : null;
  if (!workspaceId) return send(res, 401, { error: { code: 'unauthorized' } });

  if (url.pathname === '/api/v1/tickets') {
    if (req.method === 'GET') {
      const page = Number(url.searchParams.get('page') ?? 1);
      const perPage = Number(url.searchParams.get('per_page') ?? 20);
      const { tickets, total } = await listTickets(db, workspaceId, page, perPage);
      return send(res, 200, { data: tickets.map(presentTicket), pagination: { page, perPage, total } });
    }
    if (req.method === 'POST') {
      const ticket = await createTicket(db, workspaceId, (await readJson(req)) as NewTicket);
      return send(res, 201, { data: presentCreatedTicket(ticket) });
    }
  }
  const ticketId = TICKET_PATH.exec(url.pathname)?.[1];
  if (ticketId && req.method === 'GET') {
    const ticket = await getTicket(db, workspaceId, ticketId);
    return ticket ? send(res, 200, { data: presentTicket(ticket) }) : send(res, 404, { error: { code: 'not_found' } });
  }
  const messagesOf = MESSAGES_PATH.exec(url.pathname)?.[1];
  if (messagesOf && req.method === 'POST') {
    const message = await addMessage(db, workspaceId, messagesOf, (await readJson(req)) as NewMessage);
    return message ? send(res, 201, { data: message, meta: { messageAddedEvent: 'emitted' } }) : send(res, 404, { error: { code: 'not_found' } });
  }
  send(res, 404, { error: { code: 'not_found' } });
}

function readJson(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', reject);
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString()));
      } catch (err) {
        reject(err);
      }
    });
  });
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((err) => send(res, 500, { error: { code: 'internal_error', message: String(err) } }));
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening'));

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    server.close();
    server.closeAllConnections();
    void db.end().finally(() => process.exit(0));
  });
}
