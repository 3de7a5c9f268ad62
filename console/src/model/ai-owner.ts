// The AI owner's part of a ticket's page: the turns it took (GET /api/v1/tickets/:id/ai), the
// titles of the articles they cite, the draft a person may send, and the answer of "what would
// it do now" (the dry run). `aiOwnerReducer` is pure: it takes what the agent did and what the
// API answered (console/src/pages/ticket/useAiOwner.ts makes the calls). Unit-tested in
// test/unit/console/ai-owner.test.ts.

import { ApiError, type AiDryRun, type AiTurn } from '../api-types.ts';
import type { LiveEvent } from './live.ts';

export type DryRunState =
  | { state: 'idle' }
  | { state: 'running' }
  | { state: 'answered'; answer: AiDryRun }
  | { state: 'failed'; error: unknown };

export type AiOwnerState = {
  /** Oldest first; null until read. */
  turns: AiTurn[] | null;
  turnsError: unknown;
  /** Article titles by id; null: the article is gone (or cannot be read). */
  titles: Record<string, string | null>;
  dryRun: DryRunState;
  /** Drafts being sent, by id. */
  sending: Record<string, true>;
  /** Why the server refused to send a draft, by id. */
  refusals: Record<string, string>;
};

export type AiOwnerAction =
  | { type: 'turnsLoaded'; turns: AiTurn[] }
  | { type: 'turnsFailed'; error: unknown }
  | { type: 'titlesLoaded'; titles: Record<string, string | null> }
  | { type: 'dryRunStarted' }
  | { type: 'dryRunAnswered'; answer: AiDryRun }
  | { type: 'dryRunFailed'; error: unknown }
  | { type: 'dryRunClosed' }
  | { type: 'sendStarted'; draftId: string }
  /** The draft's turn as the server answered it, sent. */
  | { type: 'sent'; turn: AiTurn }
  | { type: 'sendFailed'; draftId: string; error: unknown };

export const initialAiOwner = (): AiOwnerState => ({ turns: null, turnsError: null, titles: {}, dryRun: { state: 'idle' }, sending: {}, refusals: {} });

const without = <T>(record: Record<string, T>, key: string): Record<string, T> => {
  const { [key]: _, ...rest } = record;
  return rest;
};

const oldestFirst = (turns: AiTurn[]): AiTurn[] => [...turns].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));

export function aiOwnerReducer(state: AiOwnerState, action: AiOwnerAction): AiOwnerState {
  switch (action.type) {
    case 'turnsLoaded': {
      // A draft no longer waiting has nothing left to refuse.
      const waiting = new Set(action.turns.filter((t) => t.draft?.state === 'waiting').map((t) => t.id));
      const refusals = Object.fromEntries(Object.entries(state.refusals).filter(([id]) => waiting.has(id)));
      return { ...state, turns: oldestFirst(action.turns), turnsError: null, refusals };
    }
    case 'turnsFailed':
      return { ...state, turnsError: action.error };
    case 'titlesLoaded':
      return { ...state, titles: { ...state.titles, ...action.titles } };
    case 'dryRunStarted':
      return { ...state, dryRun: { state: 'running' } };
    case 'dryRunAnswered':
      return {
        ...state,
        dryRun: { state: 'answered', answer: action.answer },
        titles: { ...state.titles, ...Object.fromEntries(action.answer.articles.map((a) => [a.id, a.title])) },
      };
    case 'dryRunFailed':
      return { ...state, dryRun: { state: 'failed', error: action.error } };
    case 'dryRunClosed':
      return { ...state, dryRun: { state: 'idle' } };
    case 'sendStarted':
      return { ...state, sending: { ...state.sending, [action.draftId]: true }, refusals: without(state.refusals, action.draftId) };
    case 'sent':
      return {
        ...state,
        turns: state.turns && oldestFirst(state.turns.map((t) => (t.id === action.turn.id ? action.turn : t))),
        sending: without(state.sending, action.turn.id),
      };
    case 'sendFailed':
      return { ...state, sending: without(state.sending, action.draftId), refusals: { ...state.refusals, [action.draftId]: refusalText(action.error) } };
  }
}

function refusalText(error: unknown): string {
  if (error instanceof ApiError && error.status === 403) return `${error.message} Choose who you are (a member) at the top of the page.`;
  return error instanceof Error ? error.message : String(error);
}

/** The turns are read again on these events of the ticket: a reply (message.added) or a hand-off or status change (ticket.updated). */
export const rereadsTurns = (event: Pick<LiveEvent, 'type' | 'ticketId'>, ticketId: string): boolean =>
  event.ticketId === ticketId && (event.type === 'message.added' || event.type === 'ticket.updated');

/**
 * A turn may follow this event without another event of its own: a draft changes nothing on
 * the ticket, so the feed says nothing of it. After a customer's message to a ticket the owner
 * holds, or the ticket given to it while an answer is owed (open or escalated), the turns are
 * read again at OWNER_TURN_CHECKS_MS until a new one shows.
 */
export const awaitsOwnerTurn = (event: Pick<LiveEvent, 'type' | 'ticketId' | 'ticket' | 'message'>, ticketId: string): boolean =>
  event.ticketId === ticketId &&
  event.ticket.assignedTo === 'ai' &&
  ((event.type === 'message.added' && event.message?.direction === 'inbound') ||
    (event.type === 'ticket.updated' && (event.ticket.status === 'open' || event.ticket.status === 'escalated')));

/** The delays of those reads, one after the other: the owner answers within seconds, or within half a minute through a slow model. */
export const OWNER_TURN_CHECKS_MS = [1_000, 2_000, 4_000, 8_000, 15_000] as const;

/** Whether the page shows the owner's turns: it handled the ticket, or holds it now. */
export const showsTurns = (turns: AiTurn[] | null, assignedTo: string | null): boolean => (turns !== null && turns.length > 0) || assignedTo === 'ai';

/** What the owner did, in a few words. */
export function actionWords(action: AiTurn['action'] | AiDryRun['action']): string {
  switch (action) {
    case 'reply':
      return 'replied';
    case 'handoff':
      return 'handed off';
    case 'draft':
      return 'drafted a reply';
    default:
      return 'nothing';
  }
}

/** The same, as the dry run says what the owner would do. */
export function wouldWords(action: AiDryRun['action']): string {
  switch (action) {
    case 'reply':
      return 'would reply';
    case 'handoff':
      return 'would hand off';
    case 'draft':
      return 'would draft a reply';
    default:
      return 'would do nothing';
  }
}

/** Who wrote it: the model's name, or the articles alone (no model asked). */
export const modelWords = (model: string | null): string => model ?? 'articles only';

/** What became of a draft, for the agent. */
export function draftWords(draft: NonNullable<AiTurn['draft']>): string {
  switch (draft.state) {
    case 'waiting':
      return draft.approvalId ? 'Waiting for a person’s yes on the Approvals page, or to be sent here.' : 'Waiting for a person to send it.';
    case 'sent':
      return draft.sentBy ? `Sent by ${draft.sentBy}.` : 'Sent.';
    case 'superseded':
      return 'Replaced by a newer draft.';
    case 'discarded':
      return 'Rejected in the approvals: not sent, the ticket handed to a person.';
  }
}

/** Whether the agent can send this turn's draft now, and if not, why. */
export function sendable(turn: AiTurn, me: string | null, sending: boolean): { can: boolean; why: string | null } {
  if (turn.draft?.state !== 'waiting') return { can: false, why: null };
  if (sending) return { can: false, why: 'Sending…' };
  if (!me) return { can: false, why: 'Choose who you are at the top of the page to send it.' };
  return { can: true, why: null };
}

/** The cited articles whose titles are not known yet (turns and the dry run's answer), each once. */
export function unknownCitations(state: AiOwnerState): string[] {
  const ids = new Set<string>();
  for (const t of state.turns ?? []) for (const id of t.citations) ids.add(id);
  if (state.dryRun.state === 'answered') for (const id of state.dryRun.answer.citations) ids.add(id);
  return [...ids].filter((id) => !(id in state.titles));
}

/** The dry run's answer in one sentence. */
export function dryRunHeadline(answer: AiDryRun): string {
  const what = wouldWords(answer.action);
  if (answer.acts) return `The AI owner ${what} now.`;
  return `The AI owner would not act now${answer.why ? `: ${answer.why.replace(/\.$/, '')}` : ''}. If it did, it ${what}.`;
}
