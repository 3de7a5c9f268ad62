import { z } from 'zod';
import { jsonRecord } from '../http/validate.ts';

export const triggerWorkflowBody = z.strictObject({
  ticketId: z.string({ error: () => 'ticketId must be a string.' }).optional(),
  data: jsonRecord('data must be a JSON object.').optional(),
});
