import { z } from 'zod';
import { nullableText, text } from '../http/validate.ts';
import { userId } from '../workspaces/user-id.ts';

/** POST /api/v1/tickets/:id/replies: an agent's answer to the customer, with the limits of a message. */
export const agentReplyBody = z.strictObject({
  authorId: userId('authorId').meta({ description: 'The agent: a current member or admin of the workspace (else 403).' }),
  body: text({ min: 1, max: 100_000, nonBlank: true, label: 'body' }),
  bodyHtml: nullableText({ max: 200_000, label: 'bodyHtml' }).optional(),
});
export type AgentReplyInput = z.infer<typeof agentReplyBody>;
