import { describe, expect, it } from 'vitest';
import { engineWorkspace, useEngineApp } from '../helpers/engine.ts';
import { expectStatus, getTicket, readMessages } from '../helpers/api.ts';
import { addArticle, PASSWORD_ARTICLE, setOwner, ticketForAi, turnsAfter, turnsOf } from '../helpers/ai.ts';
import { eventually } from '../helpers/poll.ts';

// docs/ai.md, "Drafts", on the real engine without a model: with autoSend false the owner's run
// writes a draft that asks for a person's yes in the approvals inbox; the decision sends it or
// hands the ticket off.

const app = useEngineApp();

async function draftWaiting() {
  const { api } = await engineWorkspace(app, [{ userId: 'lead' }, { userId: 'dana' }]);
  await addArticle(api, PASSWORD_ARTICLE);
  await setOwner(api, { enabled: true, autoSend: false, handoffTo: 'lead' });
  const ticketId = await ticketForAi(api, 'How do I reset my password?');
  const [turn] = await turnsAfter(api, ticketId, 1);
  expect(turn).toMatchObject({ action: 'draft', draft: { state: 'waiting', approvalId: expect.any(String) } });
  const pending = await api.get('/api/approvals?status=pending&approver=lead');
  expectStatus(pending, 200);
  expect(pending.body.approvals).toMatchObject([{ id: turn.draft.approvalId, source: 'ai_owner', ticketId, draftId: turn.id, approvers: ['lead'], status: 'pending' }]);
  expect(pending.body.approvals[0].question).toBe(`Send this reply to Casey Customer <customer@example.com> on "Help"?\n\n${PASSWORD_ARTICLE.body}`);
  return { api, ticketId, turn, approvalId: turn.draft.approvalId as string };
}

const outbound = async (api: Awaited<ReturnType<typeof draftWaiting>>['api'], ticketId: string) => (await readMessages(api, ticketId)).filter((m) => m.direction === 'outbound');

describe('the AI owner’s drafts in the approvals inbox', () => {
  it('approved: the reply goes out once and the ticket is pending', async () => {
    const { api, ticketId, approvalId } = await draftWaiting();
    expect(await outbound(api, ticketId)).toEqual([]);
    const decided = await api.post(`/api/approvals/${approvalId}/decision`, { userId: 'lead', decision: 'approve' });
    expectStatus(decided, 200);
    expect(decided.body.approval.status).toBe('approved');
    expect((await outbound(api, ticketId)).map((m) => m.body)).toEqual([PASSWORD_ARTICLE.body]);
    expect((await getTicket(api, ticketId)).status).toBe('pending');
    expect((await api.post(`/api/approvals/${approvalId}/decision`, { userId: 'lead', decision: 'approve' })).status).toBe(409);
    // The owner's run does not answer its own sent draft again.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await turnsOf(api, ticketId)).toHaveLength(1);
    expect(await outbound(api, ticketId)).toHaveLength(1);
  });

  it('rejected: the draft is discarded and the ticket goes to handoffTo with the reason', async () => {
    const { api, ticketId, approvalId } = await draftWaiting();
    const decided = await api.post(`/api/approvals/${approvalId}/decision`, { userId: 'lead', decision: 'reject', comment: 'Wrong article.' });
    expectStatus(decided, 200);
    expect(await getTicket(api, ticketId)).toMatchObject({ assignedTo: 'lead', status: 'open' });
    const [turn] = await turnsOf(api, ticketId);
    expect(turn).toMatchObject({ reason: 'draft rejected by lead: Wrong article.', draft: { state: 'discarded' } });
    expect((await api.post(`/api/approvals/${approvalId}/decision`, { userId: 'lead', decision: 'approve' })).status).toBe(409);
    // Assigned to a person: the owner's run stops, and nothing is sent.
    await eventually(async () => {
      const wakeups = await app.orm.em.fork().execute(`select 1 from ai_wakeups where ticket_id = ? and kind = 'stop'`, [ticketId]);
      return wakeups.length ? true : undefined;
    }, 10_000, 'the owner told to stop');
    expect(await outbound(api, ticketId)).toEqual([]);
  });
});
