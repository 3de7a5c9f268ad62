// The vocabulary of a workflow graph (workflowJson). Pure declarations: this file is
// imported by the API (validation on save) and by the Temporal workflow sandbox, so it
// holds constants and types only. Lists are `as const` tuples instead of enums because the
// project runs TypeScript through type stripping (no enums allowed).

export const TRIGGER_TYPES = [
  'ticket_created',
  'ticket_updated',
  'ticket_closed',
  'message_received',
  'tag_added',
  'manual',
  'scheduled',
  'webhook',
  'sla_warning',
  'sla_breached',
] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

export const TICKET_STATUSES = ['open', 'pending', 'escalated', 'solved', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

export const TICKET_PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
export type TicketPriority = (typeof TICKET_PRIORITIES)[number];

export const RESOLUTION_TYPES = [
  'resolved_by_agent',
  'resolved_by_ai',
  'resolved_by_automation',
  'duplicate',
  'spam',
] as const;
export type ResolutionType = (typeof RESOLUTION_TYPES)[number];

export const NODE_TYPES = ['trigger', 'condition', 'action'] as const;
export type NodeType = (typeof NODE_TYPES)[number];

export const OPERATORS = [
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
  'in',
  'not_in',
  'greater_than',
  'greater_or_equal',
  'less_than',
  'less_or_equal',
  'is_empty',
  'is_not_empty',
  'matches',
  'changed',
  'changed_to',
  'changed_from',
  'in_business_hours',
  'outside_business_hours',
  'older_than',
  'newer_than',
] as const;
export type Operator = (typeof OPERATORS)[number];

/** Operators whose `value` is a calendar id: the field's instant against the calendar's open hours. */
export const BUSINESS_HOURS_OPERATORS = ['in_business_hours', 'outside_business_hours'] as const;
/** Operators whose `value` is an age, `{ seconds }` or `{ seconds, calendarId }`, measured up to `now`. */
export const AGE_OPERATORS = ['older_than', 'newer_than'] as const;
/** Operators that compare the field with a value as numbers or instants. */
export const COMPARISON_OPERATORS = ['greater_than', 'greater_or_equal', 'less_than', 'less_or_equal'] as const;

/**
 * The condition field that reads the moment the condition is evaluated (a run's workflow time,
 * a dry run's `at`), not the context. Only the operators that read an instant take it.
 */
export const NOW_FIELD = 'now';
/** Operators a condition on `now` may use. */
export const NOW_OPERATORS = [...BUSINESS_HOURS_OPERATORS, ...COMPARISON_OPERATORS] as const;
/** Date fields of the context (ISO 8601 instants), for the business-hours and age operators; `data.*` may hold others. */
export const DATE_CONTEXT_FIELDS = ['ticket.createdAt', 'ticket.updatedAt', 'message.createdAt', 'sla.dueAt'] as const;

/** Days of a calendar's week, as its opening hours name them. */
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** When a desk is open (a calendar of the API, as a run reads it): its zone, weekly hours and holidays. */
export interface BusinessCalendar {
  /** An IANA time zone name. */
  timeZone: string;
  /** Open from `from` up to, not including, `to` (`HH:MM`; `to` may be `24:00`), local time. */
  hours: Array<{ day: Weekday; from: string; to: string }>;
  /** Local dates (`YYYY-MM-DD`) closed all day. */
  holidays: Array<{ date: string; name?: string }>;
}

/** Calendars a run can read, by id. */
export type CalendarsById = Readonly<Record<string, BusinessCalendar>>;

export const ACTION_TYPES = [
  'assign_ticket',
  'set_status',
  'set_priority',
  'set_resolution_type',
  'add_tag',
  'remove_tag',
  'send_reply',
  'http_request',
  'delay',
  'wait_for_reply',
  'request_approval',
] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

/** Actions that complete with a true/false outcome and choose their outgoing edges by label, as a condition does. */
export const BRANCHING_ACTIONS = ['wait_for_reply', 'request_approval'] as const;

/** request_approval: whose decision it waits for (`any`: the first; `all`: every approver's yes, while one no rejects). */
export const APPROVAL_QUORUMS = ['any', 'all'] as const;
export type ApprovalQuorum = (typeof APPROVAL_QUORUMS)[number];
/** request_approval: the branch a time-out takes (`reject`: false, the default; `approve`: true). */
export const APPROVAL_TIMEOUT_OUTCOMES = ['reject', 'approve'] as const;
export type ApprovalTimeoutOutcome = (typeof APPROVAL_TIMEOUT_OUTCOMES)[number];
/** How many people one request_approval may ask, and how long its question may be. */
export const MAX_APPROVERS = 20;
export const MAX_QUESTION_LENGTH = 2000;

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Roots a condition field or a {{placeholder}} may start with (the run context's keys). */
export const CONTEXT_ROOTS = ['ticket', 'message', 'changes', 'tag', 'sla', 'data'] as const;
export type ContextRoot = (typeof CONTEXT_ROOTS)[number];

/** Fields of `ticket` in the run context: the public Ticket plus `language`. */
export const TICKET_CONTEXT_FIELDS = [
  'id',
  'subject',
  'status',
  'priority',
  'customerEmail',
  'customerName',
  'source',
  'assignedTo',
  'resolutionType',
  'tags',
  'createdAt',
  'updatedAt',
  'language',
] as const;

/** Fields of `message` in the run context: the public Message. */
export const MESSAGE_CONTEXT_FIELDS = [
  'id',
  'ticketId',
  'direction',
  'senderEmail',
  'senderName',
  'body',
  'bodyHtml',
  'createdAt',
] as const;

/**
 * Fields of `sla` in the context of sla_warning and sla_breached runs: the policy, the metric
 * (first_reply, next_reply, resolution) and when the target is due (an ISO 8601 instant).
 */
export const SLA_CONTEXT_FIELDS = ['policyId', 'policyName', 'metric', 'dueAt'] as const;

/** Ticket fields a ticket_updated event can report in `changes` (and `changed*` can name). */
export const CHANGEABLE_TICKET_FIELDS = [
  'subject',
  'status',
  'priority',
  'assignedTo',
  'resolutionType',
  'tags',
  'customerEmail',
  'customerName',
] as const;
export type ChangeableTicketField = (typeof CHANGEABLE_TICKET_FIELDS)[number];

/** Upper bound for delay.seconds, wait_for_reply.timeoutSeconds: one year. */
export const MAX_WAIT_SECONDS = 31_536_000;

// ---------------------------------------------------------------------------------------
// Node data

/** Every node's data may carry a display label (≤ 200 characters). */
interface Labelled {
  label?: string;
}

export interface ConditionLeaf {
  field: string;
  operator: Operator;
  value?: unknown;
  caseSensitive?: boolean;
}

export interface ConditionGroup {
  match: 'all' | 'any';
  conditions: ConditionData[];
}

export type ConditionData = ConditionLeaf | ConditionGroup;

export interface TicketFilter {
  status?: TicketStatus[];
  priority?: TicketPriority[];
  tagsAny?: string[];
  idleForSeconds?: number;
  /** Counts idleForSeconds in this calendar's open time. */
  calendarId?: string;
}

export interface ScheduledTriggerData extends Labelled {
  triggerType: 'scheduled';
  cron?: string;
  intervalSeconds?: number;
  timezone?: string;
  ticketFilter?: TicketFilter;
}

export interface EventTriggerData extends Labelled {
  triggerType: Exclude<TriggerType, 'scheduled'>;
}

export type TriggerData = ScheduledTriggerData | EventTriggerData;

export type ActionData = Labelled &
  (
    | { actionType: 'assign_ticket'; assignTo: string }
    | { actionType: 'set_status'; status: TicketStatus }
    | { actionType: 'set_priority'; priority: TicketPriority }
    | { actionType: 'set_resolution_type'; resolutionType: ResolutionType }
    | { actionType: 'add_tag'; tag: string }
    | { actionType: 'remove_tag'; tag: string }
    | { actionType: 'send_reply'; body: string; bodyHtml?: string }
    | {
        actionType: 'http_request';
        method: HttpMethod;
        url: string;
        headers?: Record<string, string>;
        body?: string | Record<string, unknown> | unknown[];
      }
    | { actionType: 'delay'; seconds: number; until?: never; businessSeconds?: never; calendarId?: never }
    | { actionType: 'delay'; until: string; seconds?: never; businessSeconds?: never; calendarId?: never }
    | { actionType: 'delay'; businessSeconds: number; calendarId: string; seconds?: never; until?: never }
    | { actionType: 'wait_for_reply'; timeoutSeconds: number; calendarId?: string }
    | {
        actionType: 'request_approval';
        /** User ids of the workspace's members or admins (checked when the graph is saved). */
        approvers: string[];
        /** A template, rendered when the run asks. */
        question: string;
        quorum?: ApprovalQuorum;
        timeoutSeconds?: number;
        /** With timeoutSeconds: it counts this calendar's open time. */
        calendarId?: string;
        onTimeout?: ApprovalTimeoutOutcome;
      }
  );

// ---------------------------------------------------------------------------------------
// Graph

/** Keys other than id/type/data (e.g. `position` of a UI editor) are allowed and kept. */
interface NodeBase {
  id: string;
  position?: unknown;
}

export interface TriggerNode extends NodeBase {
  type: 'trigger';
  data: TriggerData;
}

export interface ConditionNode extends NodeBase {
  type: 'condition';
  data: ConditionData & Labelled;
}

export interface ActionNode extends NodeBase {
  type: 'action';
  data: ActionData;
}

export type GraphNode = TriggerNode | ConditionNode | ActionNode;

export type EdgeLabel = 'true' | 'false';

export interface GraphEdge {
  source: string;
  target: string;
  label?: EdgeLabel;
  id?: string;
}

export interface WorkflowGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** Opaque UI state (pan/zoom of an editor); kept as given. */
  viewport?: unknown;
}

/** One problem found by validateGraph; `path` is rooted at `workflowJson`. */
export interface GraphIssue {
  path: string;
  message: string;
}

export type GraphValidation = { ok: true; graph: WorkflowGraph } | { ok: false; issues: GraphIssue[] };

/**
 * The run context conditions and templates read. A plain JSON object built by the caller;
 * every key is optional because which ones exist depends on the trigger.
 */
export interface RunContext {
  ticket?: Record<string, unknown>;
  message?: Record<string, unknown>;
  changes?: Record<string, { from: unknown; to: unknown }>;
  tag?: string;
  /** sla_warning and sla_breached: the target (SLA_CONTEXT_FIELDS). */
  sla?: Record<string, unknown>;
  data?: Record<string, unknown>;
}
