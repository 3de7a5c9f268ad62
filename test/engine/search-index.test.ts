import { describe, expect, it } from 'vitest';
import { engineWorkspace, settled, useEngineApp } from '../helpers/engine.ts';
import { activeWorkflow, expectStatus, finishedExecutions, openTicket } from '../helpers/api.ts';
import { actionNode } from '../helpers/graphs.ts';

// The worker's relay keeps the ticket list's search documents (src/tickets/search-index.ts): it
// rebuilds them as it delivers the events that change a ticket's text, a workflow's reply
// included; the search finds new words before and after.

const app = useEngineApp();

const storedDocument = async (ticketId: string) =>
  (await app.orm.em.fork().execute(`select "message_seq", "document"::text as "document" from "ticket_search" where "ticket_id" = ?`, [ticketId]))[0] as
    | { message_seq: number; document: string }
    | undefined;

describe('the relay keeps the search documents', () => {
  it('builds a new ticket’s document, then adds an agent’s and a workflow’s replies', async () => {
    const { ws, api } = await engineWorkspace(app, [{ userId: 'agent-1' }]);
    const workflowId = await activeWorkflow(api, 'message_received', 'start > answer', [actionNode('answer', { actionType: 'send_reply', body: 'Automatic acknowledgement: escalating.' })]);
    const id = await openTicket(api, { subject: 'Projector hums', body: 'Loud humming since Monday.' });
    await settled(app, ws.workspaceId);
    const built = await storedDocument(id);
    expect(built?.document).toContain("'projector':1A");
    expect(built?.document).toMatch(/'humming':\d+B/);

    expectStatus(await api.post(`/api/v1/tickets/${id}/replies`, { authorId: 'agent-1', body: 'Is the fan dusty?' }), 201);
    expectStatus(await api.post(`/api/v1/tickets/${id}/messages`, { body: 'No dust at all.', senderEmail: 'customer@example.com' }), 201);
    // Found at once, whether or not the relay has got to it yet.
    expect((await api.get('/api/v1/tickets?q=dusty')).body.data.map((t: { id: string }) => t.id)).toEqual([id]);
    await finishedExecutions(api, workflowId);
    await settled(app, ws.workspaceId);
    const stored = await storedDocument(id);
    expect(stored?.message_seq).toBe(4);
    for (const word of ['dusty', 'dust', 'acknowledgement']) expect(stored?.document, word).toContain(`'${word}'`);
    expect((await api.get('/api/v1/tickets?q=acknowledgement')).body.pagination.total).toBe(1);
  });
});
