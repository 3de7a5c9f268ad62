// The AI owner's part of a ticket's page (console/src/model/ai-owner.ts): its turns oldest
// first, what each says, the draft an agent may send, the events that read them again, and the
// dry run's answer.
import { describe, expect, it } from 'vitest';
import { ApiError, type AiDryRun, type AiTurn, type Message, type Ticket } from '../../../console/src/api-types.ts';
import {
  actionWords,
  aiOwnerReducer,
  draftWords,
  dryRunHeadline,
  initialAiOwner,
  modelWords,
  awaitsOwnerTurn,
  rereadsTurns,
  sendable,
  showsTurns,
  unknownCitations,
  type AiOwnerAction,
  type AiOwnerState,
} from '../../../console/src/model/ai-owner.ts';

const at = (minute: number) => `2026-03-02T09:${String(minute).padStart(2, '0')}:00.000Z`;
const turn = (id: string, minute: number, over: Partial<AiTurn> = {}): AiTurn => ({
  id,
  at: at(minute),
  action: 'reply',
  reason: null,
  citations: [],
  messageId: null,
  answersMessageId: `m-${id}`,
  model: null,
  draft: null,
  ...over,
});
const draft = (id: string, minute: number, state: 'waiting' | 'sent' | 'superseded' | 'discarded' = 'waiting', approvalId: string | null = null) =>
  turn(id, minute, { action: 'draft', draft: { body: 'Unplug it.', state, sentAt: state === 'sent' ? at(minute + 1) : null, sentBy: state === 'sent' ? 'agent-7' : null, approvalId } });
const answer = (over: Partial<AiDryRun> = {}): AiDryRun => ({ acts: true, why: null, action: 'reply', body: 'Unplug it.', citations: ['k1'], reason: null, model: null, articles: [{ id: 'k1', title: 'Printer on fire', score: 0.6 }], ...over });
const run = (state: AiOwnerState, ...actions: AiOwnerAction[]) => actions.reduce(aiOwnerReducer, state);

describe('the AI owner on a ticket page', () => {
  it('lists the turns oldest first, whatever order they came in', () => {
    const s = run(initialAiOwner(), { type: 'turnsLoaded', turns: [turn('b', 5), turn('a', 1), turn('c', 9)] });
    expect(s.turns!.map((t) => t.id)).toEqual(['a', 'b', 'c']);
  });

  it('says what each turn did, and which model wrote it or that the articles alone did', () => {
    expect(['reply', 'handoff', 'draft'].map((a) => actionWords(a as AiTurn['action']))).toEqual(['replied', 'handed off', 'drafted a reply']);
    expect(modelWords('gpt-4o-mini')).toBe('gpt-4o-mini');
    expect(modelWords(null)).toBe('articles only');
    expect(draftWords(draft('d', 1).draft!)).toBe('Waiting for a person to send it.');
    expect(draftWords(draft('d', 1, 'sent').draft!)).toBe('Sent by agent-7.');
    expect(draftWords(draft('d', 1, 'superseded').draft!)).toBe('Replaced by a newer draft.');
    expect(draftWords(draft('d', 1, 'waiting', 'approval-1').draft!)).toBe('Waiting for a person’s yes on the Approvals page, or to be sent here.');
    expect(draftWords(draft('d', 1, 'discarded', 'approval-1').draft!)).toBe('Rejected in the approvals: not sent, the ticket handed to a person.');
  });

  it('shows the turns when the owner handled the ticket or holds it', () => {
    expect(showsTurns([turn('a', 1)], 'agent-7')).toBe(true);
    expect(showsTurns([], 'ai')).toBe(true);
    expect(showsTurns([], 'agent-7')).toBe(false);
    expect(showsTurns(null, null)).toBe(false);
  });

  it('reads the turns again on a reply or a change of the ticket shown, not on notes or other tickets', () => {
    expect(rereadsTurns({ type: 'message.added', ticketId: 't1' }, 't1')).toBe(true);
    expect(rereadsTurns({ type: 'ticket.updated', ticketId: 't1' }, 't1')).toBe(true);
    expect(rereadsTurns({ type: 'note.added', ticketId: 't1' }, 't1')).toBe(false);
    expect(rereadsTurns({ type: 'message.added', ticketId: 't2' }, 't1')).toBe(false);
  });

  it('awaits the owner\'s turn after a customer\'s message to a ticket it holds, or the ticket given to it while an answer is owed', () => {
    const ticket = (assignedTo: string | null, status: Ticket['status'] = 'open') => ({ assignedTo, status }) as Ticket;
    const message = (direction: Message['direction']) => ({ direction }) as Message;
    expect(awaitsOwnerTurn({ type: 'message.added', ticketId: 't1', ticket: ticket('ai'), message: message('inbound') }, 't1')).toBe(true);
    expect(awaitsOwnerTurn({ type: 'ticket.updated', ticketId: 't1', ticket: ticket('ai') }, 't1')).toBe(true);
    expect(awaitsOwnerTurn({ type: 'ticket.updated', ticketId: 't1', ticket: ticket('ai', 'escalated') }, 't1')).toBe(true);
    // Its own reply (outbound, the ticket then pending), a person holding it, another ticket, a note.
    expect(awaitsOwnerTurn({ type: 'message.added', ticketId: 't1', ticket: ticket('ai'), message: message('outbound') }, 't1')).toBe(false);
    expect(awaitsOwnerTurn({ type: 'ticket.updated', ticketId: 't1', ticket: ticket('ai', 'pending') }, 't1')).toBe(false);
    expect(awaitsOwnerTurn({ type: 'message.added', ticketId: 't1', ticket: ticket('agent-7'), message: message('inbound') }, 't1')).toBe(false);
    expect(awaitsOwnerTurn({ type: 'message.added', ticketId: 't2', ticket: ticket('ai'), message: message('inbound') }, 't1')).toBe(false);
    expect(awaitsOwnerTurn({ type: 'note.added', ticketId: 't1', ticket: ticket('ai') }, 't1')).toBe(false);
  });

  it('lets an agent who said who they are send a waiting draft, once', () => {
    expect(sendable(draft('d', 1), 'agent-7', false)).toEqual({ can: true, why: null });
    expect(sendable(draft('d', 1), null, false).can).toBe(false);
    expect(sendable(draft('d', 1), null, false).why).toMatch(/Choose who you are/);
    expect(sendable(draft('d', 1), 'agent-7', true)).toEqual({ can: false, why: 'Sending…' });
    expect(sendable(draft('d', 1, 'sent'), 'agent-7', false).can).toBe(false);
    expect(sendable(turn('r', 1), 'agent-7', false).can).toBe(false);
  });

  it('replaces the draft by the sent turn, and keeps a refusal until the draft no longer waits', () => {
    let s = run(initialAiOwner(), { type: 'turnsLoaded', turns: [turn('a', 1), draft('d', 3)] }, { type: 'sendStarted', draftId: 'd' });
    expect(s.sending).toEqual({ d: true });
    s = run(s, { type: 'sent', turn: draft('d', 3, 'sent') });
    expect(s.sending).toEqual({});
    expect(s.turns!.map((t) => t.draft?.state ?? null)).toEqual([null, 'sent']);

    const refused = new ApiError(409, 'draft_not_waiting', 'A newer draft replaced this one: send that one instead.', [], null);
    s = run(initialAiOwner(), { type: 'turnsLoaded', turns: [draft('d', 3)] }, { type: 'sendStarted', draftId: 'd' }, { type: 'sendFailed', draftId: 'd', error: refused });
    expect(s.refusals).toEqual({ d: 'A newer draft replaced this one: send that one instead.' });
    expect(run(s, { type: 'turnsLoaded', turns: [draft('d', 3)] }).refusals).toEqual(s.refusals);
    expect(run(s, { type: 'turnsLoaded', turns: [draft('d', 3, 'superseded'), draft('e', 4)] }).refusals).toEqual({});

    const notMember = new ApiError(403, 'forbidden', '"x" is not a current member or admin of this workspace.', [], null);
    expect(run(s, { type: 'sendFailed', draftId: 'd', error: notMember }).refusals.d).toMatch(/not a current member.*Choose who you are/);
  });

  it('asks for the title of each cited article once, taking those the dry run names', () => {
    let s = run(initialAiOwner(), { type: 'turnsLoaded', turns: [turn('a', 1, { citations: ['k1', 'k2'] }), turn('b', 2, { citations: ['k2'] })] });
    expect(unknownCitations(s)).toEqual(['k1', 'k2']);
    s = run(s, { type: 'titlesLoaded', titles: { k2: null } });
    expect(unknownCitations(s)).toEqual(['k1']);
    s = run(s, { type: 'dryRunAnswered', answer: answer({ citations: ['k1', 'k3'], articles: [{ id: 'k1', title: 'Printer on fire', score: 0.6 }] }) });
    expect(s.titles).toEqual({ k1: 'Printer on fire', k2: null });
    expect(unknownCitations(s)).toEqual(['k3']);
  });

  it('says in a sentence what the dry run answered, acting or not', () => {
    expect(dryRunHeadline(answer())).toBe('The AI owner would reply now.');
    expect(dryRunHeadline(answer({ acts: false, why: 'The AI owner is off.', action: 'handoff' }))).toBe('The AI owner would not act now: The AI owner is off. If it did, it would hand off.');
    expect(dryRunHeadline(answer({ acts: false, why: null, action: null }))).toBe('The AI owner would not act now. If it did, it would do nothing.');
    const s = run(initialAiOwner(), { type: 'dryRunStarted' });
    expect(s.dryRun).toEqual({ state: 'running' });
    expect(run(s, { type: 'dryRunFailed', error: new Error('x') }).dryRun.state).toBe('failed');
    expect(run(s, { type: 'dryRunAnswered', answer: answer() }, { type: 'dryRunClosed' }).dryRun).toEqual({ state: 'idle' });
  });
});
