import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes on every run, so an operator can list all runs of a workspace, a
 * workflow or a ticket in the Web UI (e.g. `DeskflowTicketId = "…"`). The dev server
 * registers them at start; on another cluster register them once with
 * `temporal operator search-attribute create --name … --type Keyword`.
 */
export const WORKSPACE_ID = defineSearchAttributeKey('DeskflowWorkspaceId', SearchAttributeType.KEYWORD);
export const WORKFLOW_ID = defineSearchAttributeKey('DeskflowWorkflowId', SearchAttributeType.KEYWORD);
export const TICKET_ID = defineSearchAttributeKey('DeskflowTicketId', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTES = [WORKSPACE_ID, WORKFLOW_ID, TICKET_ID];
