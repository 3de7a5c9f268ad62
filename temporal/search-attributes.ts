import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes on every run, so an operator can list all runs of a workspace, a
 * workflow (by id or name) or a ticket in the Web UI (e.g. `DeskflowTicketId = "…"`), and show
 * them as list columns. The dev server registers them at start; on another cluster
 * `npm run temporal:setup` registers the missing ones.
 */
export const WORKSPACE_ID = defineSearchAttributeKey('DeskflowWorkspaceId', SearchAttributeType.KEYWORD);
export const WORKFLOW_ID = defineSearchAttributeKey('DeskflowWorkflowId', SearchAttributeType.KEYWORD);
export const TICKET_ID = defineSearchAttributeKey('DeskflowTicketId', SearchAttributeType.KEYWORD);
/** The automation's name when the run started. */
export const WORKFLOW_NAME = defineSearchAttributeKey('DeskflowWorkflowName', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTES = [WORKSPACE_ID, WORKFLOW_ID, TICKET_ID, WORKFLOW_NAME];
