import { ApiKey, ApiKeyUsage, Member, Workspace } from '../workspaces/entity.ts';
import { TicketCount, TicketFilterCount, TicketTagCount } from '../tickets/counts.ts';
import { Ticket } from '../tickets/entity.ts';
import { Message } from '../messages/entity.ts';
import { OutboxEvent } from '../events/entity.ts';
import { Workflow, WorkflowVersion } from '../workflows/entity.ts';
import { Execution, ExecutionStep } from '../executions/entity.ts';
import { ExecutionCount } from '../executions/counts.ts';
import { ReplySignal } from '../triggers/entity.ts';
import { IdempotencyKey } from '../idempotency/entity.ts';
import { MailDelivery, Mailbox, MailMessage, MailReceipt } from '../mail/entity.ts';
import { Calendar } from '../calendars/entity.ts';
import { Note } from '../notes/entity.ts';
import { TicketSearch } from '../tickets/search-index.ts';
import { Approval } from '../approvals/entity.ts';
import { SlaBreachCount, SlaPass, SlaPolicy, SlaTarget, SlaTerms, TicketSla } from '../sla/entity.ts';
import { KnowledgeArticle } from '../knowledge/entity.ts';
import { AiSettings, AiTurn, AiWakeup } from '../ai/entity.ts';

/** Every entity of the schema; migrations are generated from these. */
export const entities = [Workspace, ApiKey, ApiKeyUsage, Member, Ticket, Message, OutboxEvent, Workflow, WorkflowVersion, Execution, ExecutionStep, ReplySignal, TicketCount, IdempotencyKey, ExecutionCount, Mailbox, MailReceipt, MailMessage, MailDelivery, Calendar, Note, TicketSearch, TicketTagCount, TicketFilterCount, Approval, SlaPolicy, SlaTerms, TicketSla, SlaTarget, SlaPass, SlaBreachCount, KnowledgeArticle, AiSettings, AiTurn, AiWakeup];
