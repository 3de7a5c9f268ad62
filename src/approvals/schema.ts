import { z } from 'zod';
import { oneOf, queryInteger, queryParam, text } from '../http/validate.ts';
import { userId } from '../workspaces/user-id.ts';
import { APPROVAL_STATUSES, DECISIONS } from './entity.ts';

export const MAX_COMMENT_LENGTH = 2000;

export const listApprovalsQuery = z.object({
  status: queryParam('status').pipe(oneOf(APPROVAL_STATUSES, 'status')).optional(),
  approver: queryParam('approver').pipe(userId('approver')).optional().meta({ description: 'A user id: only the approvals that ask this person.' }),
  limit: queryInteger('limit', { min: 1, max: 200 }).default(50),
  before: queryParam('before').optional().meta({ description: 'The id of an approval of this workspace: only older approvals.' }),
});
export type ListApprovalsQuery = z.infer<typeof listApprovalsQuery>;

export const decisionBody = z.strictObject({
  userId: userId('userId').meta({ description: 'Who decides: one of the approval\'s approvers, a current member or admin of the workspace.' }),
  decision: oneOf(DECISIONS, 'decision'),
  comment: text({ max: MAX_COMMENT_LENGTH, label: 'comment' }).optional().meta({ description: `Why, in up to ${MAX_COMMENT_LENGTH} characters.` }),
});
export type DecisionInput = z.infer<typeof decisionBody>;
