import { z } from 'zod';
import { email, nullableText, oneOf, queryInteger, queryParam, text } from '../http/validate.ts';
import { DIRECTIONS } from './entity.ts';

export const addMessageBody = z.strictObject({
  body: text({ min: 1, max: 100_000, nonBlank: true, label: 'body' }),
  senderEmail: email('senderEmail'),
  senderName: nullableText({ max: 200, label: 'senderName' }).optional(),
  direction: oneOf(DIRECTIONS, 'direction').optional(),
  bodyHtml: nullableText({ max: 200_000, label: 'bodyHtml' }).optional(),
});
export type AddMessageInput = z.infer<typeof addMessageBody>;

export const listMessagesQuery = z.object({
  limit: queryInteger('limit', { min: 1, max: 200 }).default(100),
  before: queryParam('before')
    .optional()
    .meta({ description: 'A message id of this ticket (exclusive) or an ISO 8601 date or date-time with zone: only older messages.' }),
});
