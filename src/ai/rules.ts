import type { TicketStatus } from '../tickets/values.ts';
import { AI_ASSIGNEE } from '../tickets/values.ts';
import { asksForPerson } from './person.ts';
import type { OwnerSettings } from './settings.ts';

/**
 * The AI owner's rules, pure: whether it acts on a ticket now, what it does without a model, and
 * why it hands a ticket to a person. The run (temporal/workflows/ai-owner.ts) asks an activity,
 * which reads the ticket and calls these; the dry run calls the same.
 */

/** What the owner knows of a ticket when it looks at it. */
export type Situation = {
  settings: Pick<OwnerSettings, 'enabled' | 'maxRepliesPerTicket'>;
  ticket: { assignedTo: string | null; status: TicketStatus; language: string | null; subject: string };
  /** The customer's newest message when no outbound message came after it: the one to answer. */
  waiting: { id: string; body: string; first: boolean } | null;
  /** The owner already answered, drafted or handed off for that message. */
  handled: boolean;
  /** Replies the owner has sent on the ticket so far (drafts once sent included). */
  repliesSent: number;
};

export type HandoffCode = 'asked_for_person' | 'max_replies' | 'no_article' | 'model_handoff' | 'model_invalid' | 'model_unreachable' | 'model_refused';

export type Handoff = { code: HandoffCode; reason: string };

export type NextStep =
  | { step: 'stop'; why: 'off' | 'not_owned' | 'resolved' | 'nothing_waiting' | 'handled' }
  | ({ step: 'handoff'; messageId: string } & Handoff)
  | { step: 'answer'; messageId: string; query: string };

const RESOLVED: ReadonlySet<TicketStatus> = new Set(['solved', 'closed']);

/** What the owner does with the ticket now. */
export function nextStep(s: Situation): NextStep {
  if (!s.settings.enabled) return { step: 'stop', why: 'off' };
  if (s.ticket.assignedTo !== AI_ASSIGNEE) return { step: 'stop', why: 'not_owned' };
  if (RESOLVED.has(s.ticket.status)) return { step: 'stop', why: 'resolved' };
  if (!s.waiting) return { step: 'stop', why: 'nothing_waiting' };
  if (s.handled) return { step: 'stop', why: 'handled' };
  const messageId = s.waiting.id;
  if (asksForPerson(s.waiting.body, s.ticket.language)) return { step: 'handoff', messageId, ...handoff('asked_for_person') };
  if (s.repliesSent >= s.settings.maxRepliesPerTicket) return { step: 'handoff', messageId, ...handoff('max_replies', { max: s.settings.maxRepliesPerTicket }) };
  // The first message of a ticket is often half said in its subject.
  return { step: 'answer', messageId, query: s.waiting.first ? `${s.ticket.subject}\n${s.waiting.body}` : s.waiting.body };
}

/** An article as the owner found it for a message. */
export type FoundArticle = { id: string; title: string; body: string; score: number };

/** What the owner does with a message: reply (with the articles it cites) or hand off. */
export type Decision = { action: 'reply'; body: string; citations: string[] } | ({ action: 'handoff' } & Handoff);

/** Without a model: the best article when its score reaches minScore, else a person. */
export function answerFromArticles(found: FoundArticle[], minScore: number): Decision {
  const best = found[0];
  if (!best) return { action: 'handoff', ...handoff('no_article', { minScore }) };
  if (best.score < minScore) return { action: 'handoff', ...handoff('no_article', { minScore, best }) };
  return { action: 'reply', body: best.body, citations: [best.id] };
}

/** Each hand-off's reason as the ticket's turns show it. */
export function handoff(code: HandoffCode, facts: { max?: number; minScore?: number; best?: FoundArticle; detail?: string } = {}): Handoff {
  const score = (n: number) => String(Math.round(n * 10_000) / 10_000);
  switch (code) {
    case 'asked_for_person':
      return { code, reason: 'The customer asked for a person.' };
    case 'max_replies':
      return { code, reason: `The AI already replied ${facts.max} time${facts.max === 1 ? '' : 's'} on this ticket (maxRepliesPerTicket).` };
    case 'no_article':
      return {
        code,
        reason: facts.best
          ? `No article answers this well enough: the best, "${facts.best.title}", scored ${score(facts.best.score)}, below minScore ${score(facts.minScore ?? 0)}.`
          : 'No article matches the customer’s message.',
      };
    case 'model_handoff':
      return { code, reason: `The model handed off: ${facts.detail?.trim() || 'it gave no reason'}` };
    case 'model_invalid':
      return { code, reason: `The model’s answer was not usable twice: ${facts.detail}` };
    case 'model_unreachable':
      return { code, reason: `The model could not be reached within 30 seconds${facts.detail ? `: ${facts.detail}` : '.'}` };
    case 'model_refused':
      return { code, reason: `The model refused the request: ${facts.detail}` };
  }
}

/** Where a handed-off ticket goes: to handoffTo, or unassigned and escalated when there is none. */
export function handoffChange(handoffTo: string | null): { assignedTo: string | null; status?: 'escalated' } {
  return handoffTo ? { assignedTo: handoffTo } : { assignedTo: null, status: 'escalated' };
}

/** A reply is sent at once, or kept as a draft for a person to send (autoSend false). */
export const replyAction = (autoSend: boolean): 'reply' | 'draft' => (autoSend ? 'reply' : 'draft');
