// What the owner's run (temporal/workflows/ai-owner.ts) and its activities (temporal/activities/ai.ts)
// agree on. Types only: the workflow sandbox imports them through temporal/activities/types.ts.
import type { HandoffCode } from './rules.ts';

export type OwnerInput = { workspaceId: string; ticketId: string };

/** An article found for the waiting message: what the run passes on (the bodies stay in the database). */
export type FoundRef = { id: string; title: string; score: number };

/** What the owner decided for a message: a reply (sent, or a draft) or a hand-off (its reason said by the rules from the code). */
export type OwnerDecision =
  | { action: 'reply' | 'draft'; body: string; citations: string[]; model: string | null }
  | { action: 'handoff'; code: HandoffCode; detail?: string; reason?: string; model: string | null };

/** What the owner sees when it looks at a ticket. */
export type OwnerLook =
  | { step: 'stop'; why: string }
  | { step: 'handoff'; messageId: string; code: HandoffCode; reason: string }
  | {
      step: 'answer';
      messageId: string;
      articles: FoundRef[];
      /** The model to ask (its name), or null: `decision` is the articles' answer. */
      model: string | null;
      autoSend: boolean;
      decision: OwnerDecision | null;
    };

/** One question to the model about the waiting message, with the articles found. */
export type ModelAsk = OwnerInput & { messageId: string; articleIds: string[]; retryBecause?: string };
export type ModelReply = { ok: true; action: 'reply' | 'handoff'; body: string; citations: string[]; reason: string; model: string } | { ok: false; problem: string; model: string };

/** What the owner wrote: its turn, or nothing when the ticket no longer waited for it. */
export type ActResult = { done: boolean; turnId: string | null; why?: string };

export interface AiActivities {
  /** Reads the ticket, applies the rules and, when it answers, searches the knowledge. */
  aiLook(input: OwnerInput): Promise<OwnerLook>;
  /** One call of the model (retried by the run's policy), its answer judged. */
  aiAskModel(input: ModelAsk): Promise<ModelReply>;
  /** Writes the decision (reply and pending, draft, or hand-off) and its turn, if the ticket still waits for it. */
  aiAct(input: OwnerInput & { messageId: string; decision: OwnerDecision }): Promise<ActResult>;
}
