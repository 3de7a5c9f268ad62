import type { EntityManager } from '@mikro-orm/postgresql';
import { API_ACTOR } from '../actor.ts';
import { pgTimestamp, sql } from '../common/sql.ts';
import { forbidden } from '../errors.ts';
import { newId } from '../ids.ts';
import { articlesForMessage } from '../knowledge/search.ts';
import type { Logger } from '../logger.ts';
import type { MailDeliveryStarter } from '../mail/outbound.ts';
import type { SecretBox } from '../mail/secrets.ts';
import { readTicket, type TicketRecord } from '../tickets/store.ts';
import { judgeAnswer } from './answer.ts';
import { askDraft, draftTx, sendDraftByRoute, type DraftTx } from './drafts.ts';
import { AiSettings, type DraftState } from './entity.ts';
import { ModelClient, ModelRefused } from './model.ts';
import { buildPrompt, type ConversationMessage } from './prompt.ts';
import { answerFromArticles, handoff, handoffChange, nextStep, replyAction, type FoundArticle, type NextStep } from './rules.ts';
import type { ActResult, ModelAsk, ModelReply, OwnerDecision, OwnerLook } from './run-types.ts';
import { apiKeyContext, settingsOf, type OwnerSettings } from './settings.ts';

/**
 * What the owner does on a ticket, outside the workflow sandbox: look (read the ticket, apply the
 * rules, search the knowledge), ask the model, and act (write the reply, draft or hand-off with
 * its turn). The run's activities call these (temporal/activities/ai.ts); the dry run calls
 * look and ask and never act.
 */

export const ARTICLES_PER_ANSWER = 5;
/** One call of the model: under the activity's start-to-close time-out, so a slow server fails the attempt first. */
export const MODEL_CALL_TIMEOUT_MS = 10_000;

type Waiting = { id: string; body: string; first: boolean };

/** The ticket as the rules see it, read in the unit of work of `em` (under the ticket's lock with `forUpdate`). */
export async function readSituation(em: EntityManager, workspaceId: string, ticketId: string, settings: OwnerSettings, opts: { forUpdate?: boolean } = {}) {
  const ticket = await readTicket(em, workspaceId, ticketId, opts);
  const [customer] = await sql<{ id: string; body: string; seq: number }>(
    em,
    `select m."id", m."body", m."seq" from "messages" m
      where m."ticket_id" = $1 and m."direction" = 'inbound' and lower(trim(m."sender_email")) = lower(trim($2))
        and not exists (select 1 from "messages" o where o."ticket_id" = m."ticket_id" and o."direction" = 'outbound' and o."seq" > m."seq")
      order by m."seq" desc limit 1`,
    [ticket.id, ticket.customerEmail],
  );
  const waiting: Waiting | null = customer ? { id: customer.id, body: customer.body, first: customer.seq === 1 } : null;
  const [counts] = await sql<{ handled: boolean; replies: number }>(
    em,
    `select exists (select 1 from "ai_turns" where "ticket_id" = $1 and "answers_message_id" = $2) as "handled",
            (select count(*)::int from "ai_turns" where "ticket_id" = $1 and "message_id" is not null) as "replies"`,
    [ticket.id, waiting?.id ?? null],
  );
  const step = nextStep({
    settings,
    ticket: { assignedTo: ticket.assignedTo ?? null, status: ticket.status, language: ticket.language ?? null, subject: ticket.subject },
    waiting,
    handled: counts.handled,
    repliesSent: counts.replies,
  });
  return { ticket, waiting, step };
}

export type OwnerDeps = {
  /** A fresh unit of work. */
  fork: () => EntityManager;
  logger?: Logger;
  /** Opens the model's sealed key. */
  secrets?: () => SecretBox;
  /** DESKFLOW_HTTP_ALLOW. */
  httpAllow: string[];
  /** Starts the delivery of a reply right after its commit (else the mail worker does). */
  mailDelivery?: MailDeliveryStarter;
};

export class AiOwner {
  private readonly deps: OwnerDeps;

  constructor(deps: OwnerDeps) {
    this.deps = deps;
  }

  private async settings(em: EntityManager, workspaceId: string): Promise<{ row: AiSettings | null; settings: OwnerSettings }> {
    const row = await em.findOne(AiSettings, { workspace: workspaceId });
    return { row, settings: settingsOf(row) };
  }

  /** What the owner would do on the ticket now; `assumeOwned` looks as if it were on and owned the ticket (the dry run's preview). */
  async look(workspaceId: string, ticketId: string, opts: { assumeOwned?: boolean } = {}): Promise<OwnerLook & { found?: FoundArticle[] }> {
    const em = this.deps.fork();
    const { settings } = await this.settings(em, workspaceId);
    const assumed = opts.assumeOwned ? { ...settings, enabled: true } : settings;
    const { ticket, waiting, step } = await readSituation(em, workspaceId, ticketId, assumed);
    const asIfOwned = () =>
      nextStep({ settings: assumed, ticket: { assignedTo: 'ai', status: ticket.status, language: ticket.language ?? null, subject: ticket.subject }, waiting, handled: false, repliesSent: 0 });
    const owned = opts.assumeOwned && step.step === 'stop' && step.why === 'not_owned' ? asIfOwned() : step;
    return this.lookFrom(em, workspaceId, ticket, owned, settings);
  }

  private async lookFrom(em: EntityManager, workspaceId: string, ticket: TicketRecord, step: NextStep, settings: OwnerSettings): Promise<OwnerLook & { found?: FoundArticle[] }> {
    if (step.step !== 'answer') return step.step === 'stop' ? { step: 'stop', why: step.why } : { step: 'handoff', messageId: step.messageId, code: step.code, reason: step.reason };
    const found = (await articlesForMessage(em, workspaceId, { text: step.query, language: ticket.language ?? null, limit: ARTICLES_PER_ANSWER })).map((m) => ({
      id: m.id,
      title: m.title,
      body: m.body,
      score: m.score,
    }));
    const articles = found.map(({ id, title, score }) => ({ id, title, score }));
    if (settings.model) return { step: 'answer', messageId: step.messageId, articles, model: settings.model.model, autoSend: settings.autoSend, decision: null, found };
    const decision = answerFromArticles(found, settings.minScore);
    return {
      step: 'answer',
      messageId: step.messageId,
      articles,
      model: null,
      autoSend: settings.autoSend,
      decision: decision.action === 'reply' ? { action: replyAction(settings.autoSend), body: decision.body, citations: decision.citations, model: null } : { action: 'handoff', code: decision.code, reason: decision.reason, model: null },
      found,
    };
  }

  /**
   * One question to the model: the instructions, the articles (read afresh by id) and the
   * conversation up to the waiting message. Throws ModelRefused when no retry can help, any
   * other error when a later attempt may succeed.
   */
  async ask(input: ModelAsk): Promise<ModelReply> {
    const em = this.deps.fork();
    const { row, settings } = await this.settings(em, input.workspaceId);
    if (!row?.modelBaseUrl || !row.modelName) throw new ModelRefused('no model is set any more');
    let apiKey: string | null = null;
    if (row.modelApiKeySealed) {
      try {
        if (!this.deps.secrets) throw new Error('this process was started without the secret key');
        apiKey = this.deps.secrets().open(row.modelApiKeySealed, apiKeyContext(input.workspaceId, row.modelBaseUrl));
      } catch (err) {
        throw new ModelRefused(`the model's key cannot be opened: ${(err as Error).message}`);
      }
    }
    const ticket = await readTicket(em, input.workspaceId, input.ticketId);
    const articles = input.articleIds.length
      ? await sql<{ id: string; title: string; body: string }>(em, 'select "id", "title", "body" from "knowledge_articles" where "workspace_id" = $1 and "id" = any($2::uuid[])', [input.workspaceId, input.articleIds])
      : [];
    const ordered = input.articleIds.flatMap((id) => articles.filter((a) => a.id === id)).map((a) => ({ ...a, score: 0 }));
    const conversation = await conversationUpTo(em, ticket, input.messageId);
    const client = new ModelClient({ baseUrl: row.modelBaseUrl, model: row.modelName, apiKey }, { httpAllow: this.deps.httpAllow, timeoutMs: MODEL_CALL_TIMEOUT_MS });
    const text = await client.complete(
      buildPrompt({ instructions: settings.instructions, articles: ordered, conversation, subject: ticket.subject, language: ticket.language ?? null, retryBecause: input.retryBecause }),
    );
    const judged = judgeAnswer(text, ordered.map((a) => a.id));
    if (!judged.ok) return { ok: false, problem: judged.problem, model: row.modelName };
    return { ok: true, ...judged.answer, model: row.modelName };
  }

  /**
   * Writes the decision for the waiting message, in one transaction under the ticket's lock, if
   * the ticket still waits for it (the owner on and owning it, the message unanswered and not
   * handled): a reply sets the ticket pending, a draft waits for a person, a hand-off assigns
   * handoffTo (or leaves the ticket unassigned and escalated). Safe to repeat: a turn is written
   * once per message.
   */
  async act(input: { workspaceId: string; ticketId: string; messageId: string; decision: OwnerDecision }): Promise<ActResult> {
    return this.inTransaction(async (tx) => {
      const { settings } = await this.settings(tx.em, input.workspaceId);
      const { ticket, step } = await readSituation(tx.em, input.workspaceId, input.ticketId, settings, { forUpdate: true });
      if (step.step === 'stop' || step.messageId !== input.messageId) {
        return { done: false, turnId: null, why: step.step === 'stop' ? step.why : 'a newer message waits' };
      }
      const turnId = newId();
      const now = new Date();
      const d = input.decision;
      const turn = { id: turnId, ticketId: input.ticketId, answersMessageId: input.messageId, model: d.model, createdAt: now };
      if (d.action === 'handoff') {
        let reason = d.reason ?? handoff(d.code, { detail: d.detail }).reason;
        // handoffTo may have left the workspace since it was set: the ticket still goes to people.
        let to = settings.handoffTo;
        if (to && (await sql(tx.em, 'select 1 from "members" where "workspace_id" = $1 and "user_id" = $2', [input.workspaceId, to])).length === 0) {
          reason = `${reason} (handoffTo "${to}" is no longer a member: left unassigned and escalated)`;
          to = null;
        }
        await tx.tickets.update(input.workspaceId, input.ticketId, handoffChange(to), API_ACTOR);
        await insertTurn(tx.em, input.workspaceId, { ...turn, action: 'handoff', reason, citations: [], messageId: null, body: null, draftState: null });
        this.deps.logger?.info('AI owner handed off', { ticketId: input.ticketId, code: d.code, to });
      } else if (d.action === 'draft') {
        await insertTurn(tx.em, input.workspaceId, { ...turn, action: 'draft', reason: null, citations: d.citations, messageId: null, body: d.body, draftState: 'waiting' });
        // The draft asks for a person's yes in the approvals inbox; an older one waiting is replaced, its approval cancelled.
        await askDraft(tx.em, { workspaceId: input.workspaceId, ticket, draftId: turnId, body: d.body, handoffTo: settings.handoffTo, at: now });
      } else {
        const message = await tx.replies.replyAsOwner(input.workspaceId, input.ticketId, { body: d.body, senderName: settings.senderName, idempotencyKey: `ai:${input.ticketId}:${input.messageId}` });
        await tx.tickets.update(input.workspaceId, input.ticketId, { status: 'pending' }, API_ACTOR);
        await insertTurn(tx.em, input.workspaceId, { ...turn, action: 'reply', reason: null, citations: d.citations, messageId: message.id, body: null, draftState: null });
      }
      return { done: true, turnId } as ActResult;
    });
  }

  /**
   * A person sends a draft (autoSend false): as the owner's reply, by mail when the ticket came
   * by mail, and the ticket becomes pending; the draft's approval is approved by them. 403 for a
   * sender who is not a member, 404 for a draft not of this ticket, 409 for one sent already,
   * replaced by a newer draft or rejected.
   */
  async sendDraft(workspaceId: string, ticketId: string, draftId: string, authorId: string): Promise<TurnView> {
    await readTicket(this.deps.fork(), workspaceId, ticketId);
    const members = await sql(this.deps.fork(), 'select 1 from "members" where "workspace_id" = $1 and "user_id" = $2', [workspaceId, authorId]);
    if (members.length === 0) throw forbidden(`"${authorId}" is not a current member or admin of this workspace.`);
    return this.inTransaction(async (tx) => {
      await sendDraftByRoute(tx, { workspaceId, ticketId, draftId, authorId });
      const [turn] = await turnsOf(tx.em, workspaceId, ticketId, draftId);
      return turn;
    });
  }

  /**
   * What the owner would do on the ticket now, sending nothing and writing nothing: the rules, the
   * articles found and, with a model, its answer (one call, asked once more when unusable).
   * While the owner is off or the ticket is someone else's, it answers what it would do if it
   * were on and owned the ticket, and says why it does not act.
   */
  async dryRun(workspaceId: string, ticketId: string): Promise<DryRunView> {
    const now = await this.look(workspaceId, ticketId);
    const wouldNot = now.step === 'stop' && (now.why === 'off' || now.why === 'not_owned');
    const look = wouldNot ? await this.look(workspaceId, ticketId, { assumeOwned: true }) : now;
    const base = { acts: now.step !== 'stop', why: now.step === 'stop' ? STOP_REASONS[now.why as keyof typeof STOP_REASONS] ?? now.why : null, model: null as string | null, articles: [] as DryRunView['articles'] };
    if (look.step === 'stop') return { ...base, action: null, body: null, citations: [], reason: null };
    if (look.step === 'handoff') return { ...base, action: 'handoff', body: null, citations: [], reason: look.reason };
    const withArticles = { ...base, articles: look.articles.map((a) => ({ ...a, score: Math.round(a.score * 10_000) / 10_000 })), model: look.model };
    const decision = look.decision ?? (await this.askOnce(workspaceId, ticketId, look));
    if (decision.action === 'handoff') return { ...withArticles, action: 'handoff', body: null, citations: [], reason: decision.reason ?? handoff(decision.code, { detail: decision.detail }).reason };
    return { ...withArticles, action: decision.action, body: decision.body, citations: decision.citations, reason: null };
  }

  /** The model's decision for the dry run: as the run asks (once more after an unusable answer), without the run's retries. */
  private async askOnce(workspaceId: string, ticketId: string, look: Extract<OwnerLook, { step: 'answer' }>): Promise<OwnerDecision> {
    let problem: string | undefined;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const answer = await this.ask({ workspaceId, ticketId, messageId: look.messageId, articleIds: look.articles.map((a) => a.id), ...(problem ? { retryBecause: problem } : {}) });
        if (!answer.ok) {
          problem = answer.problem;
          continue;
        }
        if (answer.action === 'handoff') return { action: 'handoff', code: 'model_handoff', detail: answer.reason, model: answer.model };
        return { action: replyAction(look.autoSend), body: answer.body, citations: answer.citations, model: answer.model };
      } catch (err) {
        return { action: 'handoff', code: err instanceof ModelRefused ? 'model_refused' : 'model_unreachable', detail: (err as Error).message, model: look.model };
      }
    }
    return { action: 'handoff', code: 'model_invalid', detail: problem, model: look.model };
  }

  /** The ticket's turns, oldest first (404 for a ticket not of the workspace). */
  async turns(workspaceId: string, ticketId: string): Promise<TurnView[]> {
    const em = this.deps.fork();
    await readTicket(em, workspaceId, ticketId);
    return turnsOf(em, workspaceId, ticketId);
  }

  /** Runs `work` in one transaction with the services it writes through; a reply's delivery starts after the commit. */
  private async inTransaction<T>(work: (tx: DraftTx) => Promise<T>): Promise<T> {
    const em = this.deps.fork();
    const afterCommit: Array<(em: EntityManager) => Promise<void>> = [];
    const result = await em.transactional((txEm) => work(draftTx(txEm, { mailDelivery: this.deps.mailDelivery, afterCommit: (task) => afterCommit.push(task), logger: this.deps.logger })));
    for (const task of afterCommit) await task(em);
    return result;
  }
}

const STOP_REASONS = {
  off: 'The AI owner is off: turn it on with PATCH /api/ai { "enabled": true }.',
  not_owned: 'The ticket is not assigned to ai.',
  resolved: 'The ticket is solved or closed.',
  nothing_waiting: 'No customer message waits for an answer.',
  handled: 'The owner already handled the customer’s last message.',
} as const;

/** The dry run's answer. */
export type DryRunView = {
  acts: boolean;
  why: string | null;
  action: 'reply' | 'draft' | 'handoff' | null;
  body: string | null;
  citations: string[];
  reason: string | null;
  model: string | null;
  articles: Array<{ id: string; title: string; score: number }>;
};

/** A turn as the API shows it. */
export type TurnView = {
  id: string;
  at: string;
  action: 'reply' | 'handoff' | 'draft';
  reason: string | null;
  citations: string[];
  messageId: string | null;
  answersMessageId: string;
  model: string | null;
  draft: { body: string; state: DraftState; sentAt: string | null; sentBy: string | null; approvalId: string | null } | null;
};

type TurnRecord = {
  id: string;
  created_at: Date | string;
  action: TurnView['action'];
  reason: string | null;
  citations: string[];
  message_id: string | null;
  answers_message_id: string;
  model: string | null;
  body: string | null;
  draft_state: DraftState | null;
  approval_id: string | null;
  sent_at: Date | string | null;
  sent_by: string | null;
};

async function turnsOf(em: EntityManager, workspaceId: string, ticketId: string, turnId?: string): Promise<TurnView[]> {
  const rows = await sql<TurnRecord>(
    em,
    `select t."id", t."created_at", t."action", t."reason", t."citations", t."message_id", t."answers_message_id", t."model", t."body", t."draft_state", t."sent_at", t."sent_by",
            a."id" as "approval_id"
       from "ai_turns" t left join "approvals" a on a."draft_id" = t."id"
      where t."ticket_id" = $1 and t."workspace_id" = $2${turnId ? ' and t."id" = $3' : ''} order by t."created_at", t."id"`,
    turnId ? [ticketId, workspaceId, turnId] : [ticketId, workspaceId],
  );
  return rows.map((r) => ({
    id: r.id,
    at: pgTimestamp(r.created_at).toISOString(),
    action: r.action,
    reason: r.reason,
    citations: r.citations,
    messageId: r.message_id,
    answersMessageId: r.answers_message_id,
    model: r.model,
    draft: r.action === 'draft' ? { body: r.body ?? '', state: r.draft_state ?? 'waiting', sentAt: r.sent_at ? pgTimestamp(r.sent_at).toISOString() : null, sentBy: r.sent_by, approvalId: r.approval_id } : null,
  }));
}

type TurnRow = {
  id: string;
  ticketId: string;
  answersMessageId: string;
  action: 'reply' | 'handoff' | 'draft';
  reason: string | null;
  citations: string[];
  messageId: string | null;
  model: string | null;
  body: string | null;
  draftState: 'waiting' | null;
  createdAt: Date;
};

async function insertTurn(em: EntityManager, workspaceId: string, t: TurnRow): Promise<void> {
  await sql(
    em,
    `insert into "ai_turns" ("id", "workspace_id", "ticket_id", "answers_message_id", "action", "reason", "citations", "message_id", "model", "body", "draft_state", "created_at")
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [t.id, workspaceId, t.ticketId, t.answersMessageId, t.action, t.reason, t.citations, t.messageId, t.model, t.body, t.draftState, t.createdAt],
  );
}

/** The ticket's conversation up to the waiting message, oldest first: the customer's messages and the desk's replies (notes of others left out). */
async function conversationUpTo(em: EntityManager, ticket: TicketRecord, messageId: string): Promise<ConversationMessage[]> {
  const rows = await sql<{ direction: 'inbound' | 'outbound'; body: string }>(
    em,
    `select m."direction", m."body" from "messages" m
      where m."ticket_id" = $1 and m."seq" <= (select "seq" from "messages" where "id" = $2)
        and (m."direction" = 'outbound' or lower(trim(m."sender_email")) = lower(trim($3)))
      order by m."seq" desc limit 20`,
    [ticket.id, messageId, ticket.customerEmail],
  );
  return rows.reverse();
}
