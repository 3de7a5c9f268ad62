import { describe, expect, it } from 'vitest';
import { AiOwner } from '../../src/ai/owner.ts';
import { createWorkspace, client, useTestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/expect.ts';
import { expectStatus, getTicket, readMessages } from '../helpers/api.ts';
import { CUSTOMER, customerWrites, setOwner, ticketForAi, turnsOf } from '../helpers/ai.ts';

// docs/ai.md, "Drafts": with autoSend false each draft of the AI owner asks for a person's yes
// as an approval (source ai_owner); its decision sends or discards the draft. No worker nor
// workflow engine runs here: the owner's act is called as its run's activity would call it, and
// every decision is applied by the API alone, at once and once (no run waits for it).

const app = useTestApp({ config: { rateLimit: { perSecond: 0, burst: 0 }, metricsToken: 'scrape-secret' } as never });
const owner = new AiOwner({ fork: () => app.orm.em.fork(), httpAllow: [] });
const REPLY = 'To reset your password, open Settings, choose Security and click "Reset password".';

async function workspace(settings: Record<string, unknown>) {
  const ws = await createWorkspace(app.orm, [{ userId: 'lead' }, { userId: 'dana' }, { userId: 'ash', role: 'admin' }]);
  const api = client(app.baseUrl, ws.key);
  await setOwner(api, { enabled: true, autoSend: false, ...settings });
  return { ws, api };
}

/** The owner drafts `body` for the customer's last message, as its run does. */
async function draft(ws: { workspaceId: string }, api: ReturnType<typeof client>, ticketId: string, body = REPLY) {
  const messages = await readMessages(api, ticketId);
  const waiting = messages.filter((m) => m.direction === 'inbound').at(-1);
  const acted = await owner.act({ workspaceId: ws.workspaceId, ticketId, messageId: waiting.id, decision: { action: 'draft', body, citations: [], model: null } });
  expect(acted.done).toBe(true);
  const turn = (await turnsOf(api, ticketId)).find((t) => t.id === acted.turnId);
  return turn;
}

async function approval(api: ReturnType<typeof client>, id: string) {
  const res = await api.get(`/api/approvals/${id}`);
  expectStatus(res, 200);
  return res.body.approval;
}

const outbound = async (api: ReturnType<typeof client>, ticketId: string) => (await readMessages(api, ticketId)).filter((m) => m.direction === 'outbound');

describe('the AI owner’s drafts as approvals', () => {
  it('asks handoffTo in the approvals inbox; approving sends the reply once and sets the ticket pending', async () => {
    const { ws, api } = await workspace({ handoffTo: 'lead', senderName: 'Helper' });
    const ticketId = await ticketForAi(api, 'How do I reset my password?');
    const turn = await draft(ws, api, ticketId);

    const listed = await api.get('/api/approvals?status=pending&approver=lead');
    expectStatus(listed, 200);
    expect(listed.body.approvals).toHaveLength(1);
    const [asked] = listed.body.approvals;
    expect(asked).toEqual({
      id: turn.draft.approvalId,
      source: 'ai_owner',
      workflowId: null,
      executionId: null,
      ticketId,
      nodeId: null,
      draftId: turn.id,
      question: `Send this reply to Casey Customer <${CUSTOMER}> on "Help"?\n\n${REPLY}`,
      approvers: ['lead'],
      quorum: 'any',
      status: 'pending',
      decisions: [],
      requestedAt: expect.any(String),
      dueAt: null,
      decidedAt: null,
    });
    expect((await api.get('/api/approvals?status=pending&approver=dana')).body.approvals).toEqual([]);

    // Not among the approvers: 403, and nothing sent.
    expectError(await api.post(`/api/approvals/${asked.id}/decision`, { userId: 'dana', decision: 'approve' }), 403, 'forbidden');
    expect(await outbound(api, ticketId)).toEqual([]);

    const key = { 'Idempotency-Key': `ai-draft-${asked.id}` };
    const decided = await api.post(`/api/approvals/${asked.id}/decision`, { userId: 'lead', decision: 'approve', comment: 'Fine.' }, key);
    expectStatus(decided, 200);
    expect(decided.body.approval).toMatchObject({ status: 'approved', decisions: [{ userId: 'lead', decision: 'approve', comment: 'Fine.' }] });
    const [sent] = await outbound(api, ticketId);
    expect(sent).toMatchObject({ body: REPLY, senderName: 'Helper' });
    expect((await getTicket(api, ticketId)).status).toBe('pending');
    const [after] = await turnsOf(api, ticketId);
    expect(after).toMatchObject({ messageId: sent.id, draft: { state: 'sent', sentBy: 'lead', approvalId: asked.id } });

    // The same request again answers the same; another decision is a 409; still one reply.
    const replayed = await api.post(`/api/approvals/${asked.id}/decision`, { userId: 'lead', decision: 'approve', comment: 'Fine.' }, key);
    expect(replayed.status).toBe(200);
    expect(replayed.body).toEqual(decided.body);
    const again = await api.post(`/api/approvals/${asked.id}/decision`, { userId: 'lead', decision: 'reject' });
    expectError(again, 409, 'approval_not_pending');
    expect(again.body.error.message).toMatch(/it is approved since/);
    expect(await outbound(api, ticketId)).toHaveLength(1);
    expectError(await api.post(`/api/v1/tickets/${ticketId}/ai/drafts/${turn.id}/send`, { authorId: 'lead' }), 409, 'draft_not_waiting');
  });

  it('without handoffTo asks every member and admin; a rejection discards the draft and hands the ticket off with the reason', async () => {
    const { ws, api } = await workspace({ handoffTo: null });
    const ticketId = await ticketForAi(api, 'How do I reset my password?', { customerName: 'Alice Example' });
    const turn = await draft(ws, api, ticketId);
    const asked = await approval(api, turn.draft.approvalId);
    expect(asked).toMatchObject({ approvers: ['ash', 'dana', 'lead'], quorum: 'any', status: 'pending', question: `Send this reply to Alice Example <${CUSTOMER}> on "Help"?\n\n${REPLY}` });

    const rejected = await api.post(`/api/approvals/${asked.id}/decision`, { userId: 'dana', decision: 'reject', comment: 'Too curt for an angry customer.' });
    expectStatus(rejected, 200);
    expect(rejected.body.approval).toMatchObject({ status: 'rejected', decisions: [{ userId: 'dana', decision: 'reject' }] });
    expect(await getTicket(api, ticketId)).toMatchObject({ assignedTo: null, status: 'escalated' });
    expect(await outbound(api, ticketId)).toEqual([]);
    const [after] = await turnsOf(api, ticketId);
    expect(after).toMatchObject({ action: 'draft', messageId: null, reason: 'draft rejected by dana: Too curt for an angry customer.', draft: { state: 'discarded', sentAt: null } });

    expectError(await api.post(`/api/approvals/${asked.id}/decision`, { userId: 'lead', decision: 'approve' }), 409, 'approval_not_pending');
    expectError(await api.post(`/api/v1/tickets/${ticketId}/ai/drafts/${turn.id}/send`, { authorId: 'lead' }), 409, 'draft_not_waiting');
    expect(await outbound(api, ticketId)).toEqual([]);
  });

  it('a rejection assigns handoffTo, the ticket staying open', async () => {
    const { ws, api } = await workspace({ handoffTo: 'lead' });
    const ticketId = await ticketForAi(api, 'How do I reset my password?');
    const turn = await draft(ws, api, ticketId);
    expectStatus(await api.post(`/api/approvals/${turn.draft.approvalId}/decision`, { userId: 'lead', decision: 'reject' }), 200);
    expect(await getTicket(api, ticketId)).toMatchObject({ assignedTo: 'lead', status: 'open' });
    expect((await turnsOf(api, ticketId))[0].reason).toBe('draft rejected by lead');
  });

  it('a newer draft cancels the older one’s approval; sending by the drafts route approves it, by the sender', async () => {
    const { ws, api } = await workspace({ handoffTo: 'lead' });
    const ticketId = await ticketForAi(api, 'How do I reset my password?');
    const first = await draft(ws, api, ticketId);
    await customerWrites(api, ticketId, 'Hello? Also my printer does not print.');
    const second = await draft(ws, api, ticketId, 'Restart the printer.');
    expect(await approval(api, first.draft.approvalId)).toMatchObject({ status: 'cancelled', decidedAt: expect.any(String), decisions: [] });
    expect((await api.get('/api/approvals?status=pending&approver=lead')).body.approvals.map((a: { id: string }) => a.id)).toEqual([second.draft.approvalId]);
    expectError(await api.post(`/api/approvals/${first.draft.approvalId}/decision`, { userId: 'lead', decision: 'approve' }), 409, 'approval_not_pending');

    // A member who is not among the approvers sends it by the drafts route: the approval is theirs.
    const sent = await api.post(`/api/v1/tickets/${ticketId}/ai/drafts/${second.id}/send`, { authorId: 'dana' });
    expectStatus(sent, 200);
    expect(sent.body.turn).toMatchObject({ draft: { state: 'sent', sentBy: 'dana', approvalId: second.draft.approvalId } });
    expect(await approval(api, second.draft.approvalId)).toMatchObject({ status: 'approved', decisions: [{ userId: 'dana', decision: 'approve', comment: null }] });
    expectError(await api.post(`/api/approvals/${second.draft.approvalId}/decision`, { userId: 'lead', decision: 'approve' }), 409, 'approval_not_pending');
    expect((await outbound(api, ticketId)).map((m) => m.body)).toEqual(['Restart the printer.']);
  });

  it('counts in deskflow_approvals_pending, and goes with its ticket', async () => {
    const { ws, api } = await workspace({ handoffTo: 'lead' });
    const ticketId = await ticketForAi(api, 'How do I reset my password?');
    const turn = await draft(ws, api, ticketId);
    const em = app.orm.em.fork();
    const [{ count }] = await em.execute(`select count(*)::int as count from approvals where status = 'pending'`);
    const metrics = await (await fetch(`${app.baseUrl}/metrics`, { headers: { authorization: 'Bearer scrape-secret' } })).text();
    // This file's tests run one after another on a database of their own: the gauge is the count.
    expect(count).toBeGreaterThanOrEqual(1);
    expect(Number(/^deskflow_approvals_pending (\d+)$/m.exec(metrics)?.[1])).toBe(count);
    await em.execute('delete from tickets where id = ?', [ticketId]);
    expect(await em.execute('select 1 from approvals where id = ?', [turn.draft.approvalId])).toEqual([]);
  });
});
