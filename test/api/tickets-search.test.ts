import { describe, expect, it } from 'vitest';
import { rebuildSearchDocuments } from '../../src/tickets/search-index.ts';
import { client, createWorkspace, deliverEvents, useTestApp } from '../helpers/app.ts';
import { outboxEvents, sleep } from '../helpers/expect.ts';
import { expectStatus, openTicket } from '../helpers/api.ts';

// GET /api/v1/tickets?q=: full-text search of subjects and messages (docs/api.md, "Searching").
// No relay runs here: a ticket is found from the moment its write commits, through its
// undelivered events; deliverEvents() then does what a worker's relay does, and the stored
// documents take over.

const app = useTestApp();

async function workspace() {
  const ws = await createWorkspace(app.orm, [{ userId: 'agent-1' }]);
  return { ws, api: client(app.baseUrl, ws.key) };
}
type Api = Awaited<ReturnType<typeof workspace>>['api'];

async function search(api: Api, query: string): Promise<{ ids: string[]; total: number }> {
  const res = await api.get(`/api/v1/tickets?${query.includes('=') ? query : `q=${encodeURIComponent(query)}`}`);
  expectStatus(res, 200);
  return { ids: res.body.data.map((t: { id: string }) => t.id), total: res.body.pagination.total };
}
const undelivered = async (ticketId: string) => (await outboxEvents(app.orm, { ticketId })).filter((e) => e.deliveredAt === null).length;

describe('search right after a write, before any relay ran', () => {
  it('finds a new ticket by a word of its subject or of its first message', async () => {
    const { api } = await workspace();
    const id = await openTicket(api, { subject: 'Scanner makes grinding noise', body: 'The feeder rattles since Tuesday.' });
    expect(await undelivered(id)).toBe(1);
    expect(await search(api, 'grinding')).toEqual({ ids: [id], total: 1 });
    expect(await search(api, 'RATTLES')).toEqual({ ids: [id], total: 1 });
    expect(await search(api, 'elephant')).toEqual({ ids: [], total: 0 });
  });

  it('finds a word of a customer message and of a later agent reply', async () => {
    const { ws, api } = await workspace();
    const id = await openTicket(api, { subject: 'Laptop', body: 'It will not boot.' });
    await deliverEvents(app, ws.workspaceId);
    expectStatus(await api.post(`/api/v1/tickets/${id}/messages`, { body: 'Now the screen flickers too.', senderEmail: 'customer@example.com' }), 201);
    expect(await search(api, 'flickers')).toEqual({ ids: [id], total: 1 });
    expectStatus(await api.post(`/api/v1/tickets/${id}/replies`, { authorId: 'agent-1', body: 'Please hold the power button for thirty seconds.' }), 201);
    expect(await search(api, 'thirty')).toEqual({ ids: [id], total: 1 });
    // A message from someone else than the customer too.
    expectStatus(await api.post(`/api/v1/tickets/${id}/messages`, { body: 'Colleague here: mine shows a kernel panic.', senderEmail: 'colleague@example.com' }), 201);
    expect(await search(api, 'kernel panic')).toEqual({ ids: [id], total: 1 });
  });
});

describe('search through the stored documents the relay builds', () => {
  it('builds them when the events are delivered, and finds the same', async () => {
    const { ws, api } = await workspace();
    const id = await openTicket(api, { subject: 'Router drops wifi', body: 'Every evening around nine.' });
    await api.post(`/api/v1/tickets/${id}/replies`, { authorId: 'agent-1', body: 'Which firmware version?' });
    await api.post(`/api/v1/tickets/${id}/messages`, { body: 'Version 4.2 beta.', senderEmail: 'customer@example.com' });
    expect(await deliverEvents(app, ws.workspaceId)).toBe(3);
    expect(await undelivered(id)).toBe(0);
    const [row] = await app.orm.em.fork().execute(`select "message_seq", "document"::text as "document" from "ticket_search" where "ticket_id" = ?`, [id]);
    expect(row.message_seq).toBe(3);
    expect(row.document).toContain("'router':1A");
    expect(row.document).toMatch(/'firmware':\d+B/);
    for (const word of ['router', 'nine', 'firmware', 'beta']) expect(await search(api, word), word).toEqual({ ids: [id], total: 1 });
  });

  it('a message added after delivery is found at once, before its own event is delivered', async () => {
    const { ws, api } = await workspace();
    const id = await openTicket(api, { subject: 'Keyboard', body: 'Keys stick.' });
    await deliverEvents(app, ws.workspaceId);
    await api.post(`/api/v1/tickets/${id}/replies`, { authorId: 'agent-1', body: 'Try compressed air.' });
    expect(await search(api, 'compressed')).toEqual({ ids: [id], total: 1 });
    // Found once, not once through its stored document and once through its pending one.
    expect(await search(api, 'keyboard')).toEqual({ ids: [id], total: 1 });
    await deliverEvents(app, ws.workspaceId);
    expect(await search(api, 'compressed')).toEqual({ ids: [id], total: 1 });
  });

  it('an older build never replaces a newer one', async () => {
    const { ws, api } = await workspace();
    const id = await openTicket(api, { subject: 'Monitor', body: 'Dead pixels.' });
    await deliverEvents(app, ws.workspaceId);
    // As if a relay had already stored a document built from a later state of the ticket.
    await app.orm.em.fork().execute(`update "ticket_search" set "message_seq" = 5 where "ticket_id" = ?`, [id]);
    await app.orm.em.fork().execute(`update "messages" set "body" = 'Burnt capacitor.' where "ticket_id" = ?`, [id]);
    await rebuildSearchDocuments(app.orm.em.fork(), [id]);
    expect(await search(api, 'pixels')).toEqual({ ids: [id], total: 1 });
    expect(await search(api, 'capacitor')).toEqual({ ids: [], total: 0 });
    await app.orm.em.fork().execute(`update "ticket_search" set "message_seq" = 0 where "ticket_id" = ?`, [id]);
    await rebuildSearchDocuments(app.orm.em.fork(), [id]);
    expect(await search(api, 'capacitor')).toEqual({ ids: [id], total: 1 });
  });
});

describe('what a search matches, and in what order', () => {
  it('a word in the subject ranks above the same word in a message, whatever is newer', async () => {
    const { ws, api } = await workspace();
    const inSubject = await openTicket(api, { subject: 'Toner smudges', body: 'Pages come out grey.' });
    await sleep(3);
    const inBody = await openTicket(api, { subject: 'Printing issue', body: 'There are toner smudges on every page.' });
    await sleep(3);
    const neither = await openTicket(api, { subject: 'Printing issue', body: 'Paper jams.' });
    expect(await search(api, 'toner')).toEqual({ ids: [inSubject, inBody], total: 2 });
    await deliverEvents(app, ws.workspaceId);
    expect(await search(api, 'toner')).toEqual({ ids: [inSubject, inBody], total: 2 });
    // Equal ranks: newest first.
    expect(await search(api, 'printing')).toEqual({ ids: [neither, inBody], total: 2 });
    // A sort replaces the ranking.
    expect(await search(api, 'q=toner&sort=-created_at')).toEqual({ ids: [inBody, inSubject], total: 2 });
    expect(await search(api, 'q=toner&sort=created_at')).toEqual({ ids: [inSubject, inBody], total: 2 });
  });

  it('takes websearch syntax: all words, "a phrase", or, -word; whole words in any letter case', async () => {
    const { api } = await workspace();
    const a = await openTicket(api, { subject: 'Blue screen on boot', body: 'Windows shows a blue screen.' });
    const b = await openTicket(api, { subject: 'Screen is blue', body: 'Only the screen.' });
    const c = await openTicket(api, { subject: 'Red light blinking', body: 'Nothing else.' });
    const ids = async (q: string) => new Set((await search(api, q)).ids);
    expect(await ids('blue screen')).toEqual(new Set([a, b]));
    expect(await ids('"blue screen"')).toEqual(new Set([a]));
    expect(await ids('blue or red')).toEqual(new Set([a, b, c]));
    expect(await ids('screen -boot')).toEqual(new Set([b]));
    expect(await ids('BLUE')).toEqual(new Set([a, b]));
    // Whole words: no stemming, no prefixes.
    expect(await ids('blink')).toEqual(new Set());
    expect(await ids('screens')).toEqual(new Set());
    // Nothing to search for: no ticket, not an error.
    expect(await search(api, '!!!')).toEqual({ ids: [], total: 0 });
  });

  it('finds words in any language and script', async () => {
    const { api } = await workspace();
    const de = await openTicket(api, { subject: 'Drucker defekt', body: 'Die Größe des Papiers stimmt nicht.', language: 'de' });
    const ru = await openTicket(api, { subject: 'Принтер не печатает', body: 'Бумага застряла.' });
    expect((await search(api, 'größe')).ids).toEqual([de]);
    expect((await search(api, 'ПРИНТЕР')).ids).toEqual([ru]);
  });

  it('works with every filter, and pages with an exact total', async () => {
    const { ws, api } = await workspace();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(await openTicket(api, { subject: `Backup failed ${i}`, body: 'Disk full.', customerEmail: i % 2 ? 'odd@example.com' : 'even@example.com' }));
      await sleep(3);
    }
    await openTicket(api, { subject: 'Unrelated', body: 'Nothing.', customerEmail: 'odd@example.com' });
    await api.patch(`/api/v1/tickets/${ids[1]}`, { status: 'pending', priority: 'high', assignedTo: 'agent-1' });
    await api.post(`/api/v1/tickets/${ids[3]}/tags`, { tag: 'vip' });
    await deliverEvents(app, ws.workspaceId);
    expect(await search(api, 'q=backup&customer_email=ODD@example.com')).toEqual({ ids: [ids[3], ids[1]], total: 2 });
    expect(await search(api, 'q=backup&status=pending')).toEqual({ ids: [ids[1]], total: 1 });
    expect(await search(api, 'q=backup&priority=high&assigned_to=agent-1')).toEqual({ ids: [ids[1]], total: 1 });
    expect(await search(api, 'q=backup&assigned_to=none&source=api')).toEqual({ ids: [ids[4], ids[3], ids[2], ids[0]], total: 4 });
    expect(await search(api, 'q=backup&tag=vip')).toEqual({ ids: [ids[3]], total: 1 });
    expect(await search(api, 'q=disk&sort=-updated_at&per_page=2')).toEqual({ ids: [ids[3], ids[1]], total: 5 });
    expect(await search(api, 'q=backup&per_page=2&page=2')).toEqual({ ids: [ids[2], ids[1]], total: 5 });
    expect(await search(api, 'q=backup&per_page=2&page=9')).toEqual({ ids: [], total: 5 });
  });

  it('never finds another workspace’s tickets', async () => {
    const mine = await workspace();
    const theirs = await workspace();
    const id = await openTicket(mine.api, { subject: 'Projector flickers' });
    await openTicket(theirs.api, { subject: 'Projector flickers' });
    await deliverEvents(app, theirs.ws.workspaceId);
    expect(await search(mine.api, 'projector')).toEqual({ ids: [id], total: 1 });
    await deliverEvents(app, mine.ws.workspaceId);
    expect(await search(mine.api, 'projector')).toEqual({ ids: [id], total: 1 });
    expect((await search(theirs.api, 'projector')).total).toBe(1);
  });

  it('searches the first message and the newest 24, each up to 4,000 characters', async () => {
    const { ws, api } = await workspace();
    const id = await openTicket(api, { subject: 'Long thread', body: `${'filler '.repeat(600)}hiddenbeyondthelimit` });
    for (let i = 1; i <= 25; i++) await api.post(`/api/v1/tickets/${id}/messages`, { body: `message number${i}`, senderEmail: 'customer@example.com' });
    await deliverEvents(app, ws.workspaceId);
    expect((await search(api, 'number1')).ids).toEqual([]); // the 2nd message: neither the first nor among the newest 24
    expect((await search(api, 'number2')).ids).toEqual([id]);
    expect((await search(api, 'number25')).ids).toEqual([id]);
    expect((await search(api, 'filler')).ids).toEqual([id]);
    expect((await search(api, 'hiddenbeyondthelimit')).ids).toEqual([]);
  });
});
