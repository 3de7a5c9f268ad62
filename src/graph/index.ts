// Public API of the pure graph module: types, save-time validation, run-time evaluation,
// templates and the walker. Imported by the API and by the Temporal workflow sandbox, so
// nothing here (or below) may do I/O, read the clock or keep module state.

export {
  ACTION_TYPES,
  AGE_OPERATORS,
  APPROVAL_QUORUMS,
  APPROVAL_TIMEOUT_OUTCOMES,
  BRANCHING_ACTIONS,
  MAX_APPROVERS,
  MAX_QUESTION_LENGTH,
  BUSINESS_HOURS_OPERATORS,
  CHANGEABLE_TICKET_FIELDS,
  COMPARISON_OPERATORS,
  DATE_CONTEXT_FIELDS,
  CONTEXT_ROOTS,
  HTTP_METHODS,
  MAX_WAIT_SECONDS,
  MESSAGE_CONTEXT_FIELDS,
  NODE_TYPES,
  NOW_FIELD,
  NOW_OPERATORS,
  OPERATORS,
  RESOLUTION_TYPES,
  SLA_CONTEXT_FIELDS,
  TICKET_CONTEXT_FIELDS,
  TICKET_PRIORITIES,
  TICKET_STATUSES,
  TRIGGER_TYPES,
  WEEKDAYS,
} from './types.ts';
export type {
  ActionData,
  ActionNode,
  ActionType,
  ApprovalQuorum,
  ApprovalTimeoutOutcome,
  BusinessCalendar,
  CalendarsById,
  ChangeableTicketField,
  ConditionData,
  ConditionGroup,
  ConditionLeaf,
  ConditionNode,
  ContextRoot,
  EdgeLabel,
  EventTriggerData,
  GraphEdge,
  GraphIssue,
  GraphNode,
  GraphValidation,
  HttpMethod,
  NodeType,
  Operator,
  ResolutionType,
  RunContext,
  ScheduledTriggerData,
  TicketFilter,
  TicketPriority,
  TicketStatus,
  TriggerData,
  TriggerNode,
  TriggerType,
  Weekday,
  WorkflowGraph,
} from './types.ts';

export { defaultGraph, validateGraph, MAX_EDGES, MAX_ID_LENGTH, MAX_NODES } from './validate.ts';
export { MAX_ISSUES } from './issues.ts';
export { evaluateCondition, PatternError, type EvaluationOptions } from './conditions.ts';
export { calendarReferences, conditionCalendarIds, isCalendarId, type CalendarReference } from './calendar-refs.ts';
export { memberReferences, type MemberReference } from './member-refs.ts';
export { getPath } from './paths.ts';
export { renderAction, renderTemplate, renderTemplateDeep, templatePaths } from './template.ts';
export { GraphWalker, findTriggerNode, isBranchingNode, nodeById, outcomeEdges } from './walker.ts';
export { walkToFirstAction, type PassedStep } from './prefix.ts';
export { AGE_PARAMETERS, MAX_AGE_SECONDS, ticketConditionIssues } from './validate-conditions.ts';
export { walk } from './walk.ts';
export { needsTicketSentence, ticketActionsReached, TICKETLESS_ACTIONS, type TicketAction } from './needs-ticket.ts';
export { cronProblem } from './cron.ts';
export { MAX_PROGRAM_SIZE, patternProblem } from './regex.ts';
export { isValidTimeZone, SCHEDULE_PARAMETERS, TICKET_FILTER_PARAMETERS } from './validate-trigger.ts';
export { ACTION_PARAMETERS } from './validate-actions.ts';
export { parseIsoInstant } from './dates.ts';
export { codePointLength } from './text.ts';
export {
  addOpenTime,
  businessSchedule,
  CalendarError,
  clockMinutes,
  dayNumber,
  formatDuration,
  isOpenAt,
  isoInstant,
  openStretches,
  openTimeBetween,
  SEARCH_HORIZON_DAYS,
  subtractOpenTime,
  weekdayOf,
  type BusinessSchedule,
  type OpenStretch,
} from './business-time.ts';
