import type { Actor } from '../actor.ts';
import { AppError } from '../errors.ts';
import type { ActionData } from '../graph/index.ts';
import { resolutionAfter } from './policy.ts';
import { assigneeId } from './schema.ts';
import { normalTag, TAG_MAX_LENGTH, type ResolutionType, type TicketPriority, type TicketStatus } from './values.ts';

/** A change to a ticket, from the API or from a workflow action. */
export type TicketChange = {
  status?: TicketStatus;
  priority?: TicketPriority;
  /** null: unassigned (the AI owner's hand-off without a handoffTo). */
  assignedTo?: string | null;
  resolutionType?: ResolutionType;
  addTags?: string[];
  removeTags?: string[];
};

export type FieldChange = { from: unknown; to: unknown };

/** The fields of a ticket a change can touch. */
type Changeable = { status: TicketStatus; priority: TicketPriority; assignedTo?: string | null; resolutionType?: ResolutionType | null; tags: string[] };

/**
 * The ticket after `change` (a copy; the input is left alone), the fields that really changed
 * (from → to) and the tags it gained. Becoming solved or closed sets a resolution type unless
 * the change gives one (docs/contract.md §2). Shared by ticket updates and the dry run.
 */
export function applyTicketChange<T extends Changeable>(before: T, change: TicketChange, actor: Actor): { ticket: T; changes: Record<string, FieldChange>; addedTags: string[] } {
  const ticket: T = { ...before, tags: [...before.tags] };
  const changes: Record<string, FieldChange> = {};
  const set = <K extends keyof Changeable>(field: K, value: T[K]) => {
    const from = ticket[field];
    if (JSON.stringify(from) === JSON.stringify(value)) return;
    changes[field] = { from: field === 'tags' ? [...(from as string[])] : from, to: value };
    ticket[field] = value;
  };

  if (change.priority !== undefined) set('priority', change.priority);
  if (change.assignedTo !== undefined) set('assignedTo', change.assignedTo);
  if (change.status !== undefined) set('status', change.status);
  if (change.resolutionType !== undefined) set('resolutionType', change.resolutionType);
  else if (changes.status) {
    set('resolutionType', resolutionAfter({ status: ticket.status, current: ticket.resolutionType ?? null, assignedTo: ticket.assignedTo ?? null, actor }));
  }
  const addedTags: string[] = [];
  if (change.addTags?.length || change.removeTags?.length) {
    const tags = ticket.tags.filter((t) => !change.removeTags?.includes(t));
    for (const tag of change.addTags ?? []) {
      if (!tags.includes(tag)) {
        tags.push(tag);
        if (!ticket.tags.includes(tag)) addedTags.push(tag);
      }
    }
    set('tags', tags);
  }
  return { ticket, changes, addedTags };
}

/** The actions whose whole effect is a change of the ticket (ticketChangeOf knows them). */
const TICKET_CHANGES: ReadonlySet<ActionData['actionType']> = new Set(['assign_ticket', 'set_status', 'set_priority', 'set_resolution_type', 'add_tag', 'remove_tag']);

export const isTicketChange = (action: ActionData): boolean => TICKET_CHANGES.has(action.actionType);

/**
 * What a ticket action of a workflow (rendered) asks of the ticket. A value no retry can fix
 * (an assignee that is not a valid id, a tag that renders blank) is a 400 AppError.
 */
export function ticketChangeOf(action: ActionData): TicketChange {
  switch (action.actionType) {
    case 'assign_ticket': {
      const parsed = assigneeId.safeParse(action.assignTo);
      if (!parsed.success) throw new AppError(400, 'invalid_assignee', `"${action.assignTo}" is not a valid assignee: ${parsed.error.issues[0]?.message}`);
      return { assignedTo: parsed.data };
    }
    case 'set_status':
      return { status: action.status };
    case 'set_priority':
      return { priority: action.priority };
    case 'set_resolution_type':
      return { resolutionType: action.resolutionType };
    case 'add_tag':
      return { addTags: [checkedTag(action.tag)] };
    case 'remove_tag':
      return { removeTags: [checkedTag(action.tag)] };
    default:
      throw new AppError(400, 'unsupported_action', `${action.actionType} does not change a ticket.`);
  }
}

function checkedTag(tag: string): string {
  const normal = normalTag(tag);
  if (normal === null) throw new AppError(400, 'invalid_tag', `"${tag}" is not a valid tag (1-${TAG_MAX_LENGTH} characters, not blank).`);
  return normal;
}
