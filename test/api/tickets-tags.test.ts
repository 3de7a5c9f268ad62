import { describe, expect, it } from 'vitest';
import type { OutboxEvent } from '../../src/events/entity.ts';
import { createWorkspace, client, useTestApp, useWorkspace } from '../helpers/app.ts';
import { expectError, expectValidation, keysOf, outboxEvents, TICKET_FIELDS } from '../helpers/expect.ts';
import { expectStatus, getTicket, openTicket } from '../helpers/api.ts';
import { UNKNOWN_ID } from '../helpers/workflows.ts';

// POST /api/v1/tickets/:id/tags and DELETE /api/v1/tickets/:id/tags/:tag: the rules and events
// of the add_tag and remove_tag actions, through the API.

const app = useTestApp();
const { api } = useWorkspace(app);

const events = (ticketId: string) => outboxEvents(app.orm, { ticketId });
async function eventsOf(ticketId: string, act: () => Promise<unknown>): Promise<OutboxEvent[]> {
  const before = new Set((await events(ticketId)).map((e) => e.id));
  await act();
  return (await events(ticketId)).filter((e) => !before.has(e.id));
}
const tag = (id: string, body: unknown) => api.post(`/api/v1/tickets/${id}/tags`, body);
const untag = (id: string, name: string) => api.delete(`/api/v1/tickets/${id}/tags/${encodeURIComponent(name)}`);

describe('POST /api/v1/tickets/:id/tags', () => {
  it('adds the tag and answers the ticket, with ticket_updated and tag_added as the add_tag action writes them', async () => {
    const id = await openTicket(api);
    const before = await getTicket(api, id);
    let res!: Awaited<ReturnType<typeof tag>>;
    const written = await eventsOf(id, async () => {
      res = await tag(id, { tag: 'vip' });
    });
    expectStatus(res, 200);
    expect(keysOf(res.body)).toEqual(['data']);
    expect(keysOf(res.body.data)).toEqual(TICKET_FIELDS);
    expect(res.body.data).toMatchObject({ id, tags: ['vip'] });
    expect(Date.parse(res.body.data.updatedAt)).toBeGreaterThanOrEqual(Date.parse(before.updatedAt));
    // Written together, at one instant.
    expect(written.map((e) => e.type).sort()).toEqual(['tag_added', 'ticket_updated']);
    const updated = written.find((e) => e.type === 'ticket_updated')!;
    const added = written.find((e) => e.type === 'tag_added')!;
    expect(updated.payload.changes).toEqual({ tags: { from: [], to: ['vip'] } });
    expect(added.payload).toMatchObject({ tag: 'vip', ticket: { id, tags: ['vip'] }, cause: null });
    expect(keysOf(added.payload)).toEqual(['cause', 'tag', 'ticket']);
    expect(await getTicket(api, id)).toMatchObject({ tags: ['vip'] });
  });

  it('keeps tags in the order they were added, trimmed', async () => {
    const id = await openTicket(api);
    expectStatus(await tag(id, { tag: 'billing' }), 200);
    const res = await tag(id, { tag: '  Urgent customer ' });
    expect(res.body.data.tags).toEqual(['billing', 'Urgent customer']);
    expect((await tag(id, { tag: '🔥' })).body.data.tags).toEqual(['billing', 'Urgent customer', '🔥']);
  });

  it('a tag the ticket has already changes nothing: 200, no write, no event', async () => {
    const id = await openTicket(api);
    const first = (await tag(id, { tag: 'vip' })).body.data;
    const written = await eventsOf(id, async () => {
      const again = await tag(id, { tag: ' vip ' });
      expectStatus(again, 200);
      expect(again.body.data).toEqual(first);
    });
    expect(written).toEqual([]);
    expect((await getTicket(api, id)).updatedAt).toBe(first.updatedAt);
  });

  it.each([
    ['a blank tag', { tag: '   ' }],
    ['an empty tag', { tag: '' }],
    ['a tag of 101 characters', { tag: 'x'.repeat(101) }],
    ['a tag that is not a string', { tag: 42 }],
    ['null', { tag: null }],
    ['no tag', {}],
  ])('refuses %s with 400 naming tag, and writes nothing', async (_, body) => {
    const id = await openTicket(api);
    const written = await eventsOf(id, async () => expectValidation(await tag(id, body), 'tag'));
    expect(written).toEqual([]);
    expect((await getTicket(api, id)).tags).toEqual([]);
  });

  it('takes 100 characters, and 100 with spaces around them', async () => {
    const id = await openTicket(api);
    expectStatus(await tag(id, { tag: 'x'.repeat(100) }), 200);
    expect((await tag(id, { tag: `  ${'y'.repeat(100)}  ` })).body.data.tags).toEqual(['x'.repeat(100), 'y'.repeat(100)]);
  });

  it('refuses an unknown field with 400 naming it', async () => {
    const id = await openTicket(api);
    expectValidation(await tag(id, { tag: 'vip', color: 'red' }), 'color');
  });

  it('answers 404 for an unknown ticket or one of another workspace, before looking at the body', async () => {
    expectError(await tag(UNKNOWN_ID, { tag: '' }), 404, 'not_found');
    const other = await createWorkspace(app.orm);
    const theirs = await openTicket(client(app.baseUrl, other.key));
    expectError(await tag(theirs, { tag: 'vip' }), 404, 'not_found');
    expectError(await tag('not-a-ticket', { tag: 'vip' }), 404, 'not_found');
  });
});

describe('DELETE /api/v1/tickets/:id/tags/:tag', () => {
  it('removes the tag and answers the ticket, with ticket_updated and changes.tags', async () => {
    const id = await openTicket(api);
    await tag(id, { tag: 'vip' });
    await tag(id, { tag: 'billing' });
    let res!: Awaited<ReturnType<typeof untag>>;
    const written = await eventsOf(id, async () => {
      res = await untag(id, 'vip');
    });
    expectStatus(res, 200);
    expect(keysOf(res.body.data)).toEqual(TICKET_FIELDS);
    expect(res.body.data.tags).toEqual(['billing']);
    expect(written.map((e) => e.type)).toEqual(['ticket_updated']);
    expect(written[0].payload.changes).toEqual({ tags: { from: ['vip', 'billing'], to: ['billing'] } });
  });

  it('a tag the ticket does not have changes nothing: 200, no event', async () => {
    const id = await openTicket(api);
    await tag(id, { tag: 'billing' });
    const ticket = await getTicket(api, id);
    const written = await eventsOf(id, async () => {
      const res = await untag(id, 'vip');
      expectStatus(res, 200);
      expect(res.body.data).toEqual(ticket);
    });
    expect(written).toEqual([]);
  });

  it('takes the tag as the path gives it, decoded and trimmed: spaces, slashes, any script', async () => {
    const id = await openTicket(api);
    for (const name of ['needs review', 'a/b', 'größe', '🔥']) await tag(id, { tag: name });
    expect((await untag(id, ' needs review ')).body.data.tags).toEqual(['a/b', 'größe', '🔥']);
    expect((await untag(id, 'a/b')).body.data.tags).toEqual(['größe', '🔥']);
    expect((await untag(id, 'größe')).body.data.tags).toEqual(['🔥']);
    expect((await untag(id, '🔥')).body.data.tags).toEqual([]);
  });

  it('refuses a blank tag or one over 100 characters with 400 naming tag', async () => {
    const id = await openTicket(api);
    expectValidation(await untag(id, '   '), 'tag');
    expectValidation(await untag(id, 'x'.repeat(101)), 'tag');
  });

  it('answers 404 for an unknown ticket or one of another workspace', async () => {
    expectError(await untag(UNKNOWN_ID, 'vip'), 404, 'not_found');
    const other = await createWorkspace(app.orm);
    const theirs = await openTicket(client(app.baseUrl, other.key));
    await client(app.baseUrl, other.key).post(`/api/v1/tickets/${theirs}/tags`, { tag: 'vip' });
    expectError(await untag(theirs, 'vip'), 404, 'not_found');
  });
});
