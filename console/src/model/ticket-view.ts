// The ticket page's state: the ticket, its conversation (messages and notes, in line by time)
// and what changes them: the page's own writes as the API answers them, and the live feed's
// events, which also bring back the page's own writes (so everything is added once, by id, and
// a ticket older than the one shown never replaces it). Pure; unit-tested in
// test/unit/console/ticket-view.test.ts.

import type { Message, Note, Ticket } from '../api-types.ts';
import type { LiveEvent } from './live.ts';

export type TicketViewState = {
  ticket: Ticket | null;
  messages: Message[];
  /** All the ticket's messages, and whether older ones than those held are left to read. */
  messageTotal: number;
  truncated: boolean;
  notes: Note[];
};

export type TicketViewAction =
  | { type: 'loaded'; ticket: Ticket; messages: { data: Message[]; total: number; truncated: boolean }; notes: Note[] }
  | { type: 'olderMessages'; messages: { data: Message[]; total: number; truncated: boolean } }
  /** The API's answer to a change made here (status, priority, assignee, tags). */
  | { type: 'ticket'; ticket: Ticket }
  | { type: 'message'; message: Message }
  | { type: 'note'; note: Note }
  | { type: 'live'; event: LiveEvent };

export const initialTicketView = (): TicketViewState => ({ ticket: null, messages: [], messageTotal: 0, truncated: false, notes: [] });

export function ticketViewReducer(state: TicketViewState, action: TicketViewAction): TicketViewState {
  switch (action.type) {
    case 'loaded':
      return { ticket: action.ticket, messages: action.messages.data, messageTotal: action.messages.total, truncated: action.messages.truncated, notes: action.notes };
    case 'olderMessages':
      return { ...state, messages: addMessages(action.messages.data, state.messages), messageTotal: action.messages.total, truncated: action.messages.truncated };
    case 'ticket':
      return { ...state, ticket: fresher(state.ticket, action.ticket) };
    case 'message':
      return withMessage(state, action.message);
    case 'note':
      return withNote(state, action.note);
    case 'live':
      return live(state, action.event);
  }
}

function live(state: TicketViewState, event: LiveEvent): TicketViewState {
  if (!state.ticket || event.ticketId !== state.ticket.id) return state;
  let next: TicketViewState = { ...state, ticket: fresher(state.ticket, event.ticket) };
  if (event.type === 'message.added' && event.message) next = withMessage(next, event.message);
  if (event.type === 'note.added' && event.note) next = withNote(next, event.note);
  return next;
}

/** The ticket to show: `incoming` unless the one shown changed later. */
function fresher(shown: Ticket | null, incoming: Ticket): Ticket {
  if (!shown || shown.id !== incoming.id) return incoming;
  return Date.parse(incoming.updatedAt) >= Date.parse(shown.updatedAt) ? incoming : shown;
}

function withMessage(state: TicketViewState, message: Message): TicketViewState {
  if (state.ticket && message.ticketId !== state.ticket.id) return state;
  if (state.messages.some((m) => m.id === message.id)) return state;
  return { ...state, messages: addMessages(state.messages, [message]), messageTotal: state.messageTotal + 1 };
}

function withNote(state: TicketViewState, note: Note): TicketViewState {
  if (state.ticket && note.ticketId !== state.ticket.id) return state;
  if (state.notes.some((n) => n.id === note.id)) return state;
  return { ...state, notes: byTime([...state.notes, note]) };
}

function addMessages(held: Message[], more: Message[]): Message[] {
  const ids = new Set(held.map((m) => m.id));
  return byTime([...held, ...more.filter((m) => !ids.has(m.id))]);
}

const byTime = <T extends { createdAt: string; id: string }>(items: T[]): T[] =>
  [...items].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

export type TimelineEntry = { kind: 'message'; at: string; message: Message } | { kind: 'note'; at: string; note: Note };

/**
 * The conversation as the page shows it: messages and notes in one line, oldest first. Notes
 * older than the oldest message held wait until older messages are read, so nothing shows
 * out of its place.
 */
export function timeline(state: Pick<TicketViewState, 'messages' | 'notes' | 'truncated'>): TimelineEntry[] {
  const from = state.truncated && state.messages.length > 0 ? Date.parse(state.messages[0].createdAt) : -Infinity;
  const entries: TimelineEntry[] = [
    ...state.messages.map((m) => ({ kind: 'message' as const, at: m.createdAt, message: m })),
    ...state.notes.filter((n) => Date.parse(n.createdAt) >= from).map((n) => ({ kind: 'note' as const, at: n.createdAt, note: n })),
  ];
  return entries.sort((a, b) => Date.parse(a.at) - Date.parse(b.at) || (a.kind === b.kind ? 0 : a.kind === 'message' ? -1 : 1));
}

// ---------------------------------------------------------------------------------------
// The composer and the tags

export type ComposerMode = 'reply' | 'note';

/** Why the composer cannot send (null when it can): nothing written, or nobody to send it as. */
export function composerProblem(body: string, me: string | null, mode: ComposerMode): string | null {
  if (!me) return `Choose who you are (top right) before you ${mode === 'reply' ? 'reply' : 'write a note'}.`;
  if (body.trim() === '') return mode === 'reply' ? 'Write the reply first.' : 'Write the note first.';
  return null;
}

/** The tag to add as typed, or why not: blank, or the ticket has it already. */
export function tagToAdd(typed: string, tags: readonly string[]): { tag: string } | { problem: string } {
  const tag = typed.trim();
  if (tag === '') return { problem: 'Type a tag to add.' };
  if (tags.includes(tag)) return { problem: `The ticket is tagged "${tag}" already.` };
  return { tag };
}
