import { z } from 'zod';
import { oneOf, queryInteger, queryParam } from '../http/validate.ts';
import { EXECUTION_STATUSES } from './entity.ts';

export const listExecutionsQuery = z.object({
  limit: queryInteger('limit', { min: 1, max: 200 }).default(50),
  status: queryParam('status').pipe(oneOf(EXECUTION_STATUSES, 'status')).optional(),
  before: queryParam('before').optional().meta({ description: 'The id of an execution of this workflow: only older executions.' }),
});

export const listTicketExecutionsQuery = listExecutionsQuery.extend({
  before: queryParam('before').optional().meta({ description: 'The id of an execution of this ticket: only older executions.' }),
});
