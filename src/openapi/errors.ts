import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../errors.ts';

/** When each code is answered (docs/contract.md §1), for the document's response descriptions. */
const WHEN: Record<ErrorCode, string> = {
  invalid_json: 'the body is not valid JSON, not a JSON object, or empty while declared as JSON',
  validation_failed: 'a field or query parameter breaks its rule, or a field is not accepted here; `details` names each',
  unauthorized: 'the API key is missing, malformed, unknown or revoked',
  forbidden: 'the key’s workspace may not do this',
  not_found: 'no such resource in the key’s workspace (unknown, malformed or another workspace’s id)',
  outbound_not_allowed: 'the message is outbound; nothing is saved',
  execution_finished: 'the execution has already ended',
  workflow_inactive: 'the workflow is inactive; nothing runs',
  idempotency_key_reused: 'the Idempotency-Key was sent before with another request (endpoint or body); nothing is saved',
  calendar_in_use: 'an active workflow names the calendar; the message names each, and nothing is deleted',
  approval_not_pending: 'the approval is no longer pending (the message names its status: approved, rejected, expired or cancelled); nothing is recorded',
  already_decided: 'this approver has decided already; nothing is recorded',
  draft_not_waiting: 'the AI owner\'s draft was sent already or replaced by a newer one',
  precondition_failed: 'the `If-Match` ETag is not the workflow\'s current one: someone changed it since it was read; nothing is changed, the `ETag` header carries the current one',
  payload_too_large: 'the body is over the limit',
  unsupported_media_type: 'the body is not sent as `application/json` in UTF-8',
  rate_limited: 'the key has used up its request rate; retry after `Retry-After` seconds',
  too_many_streams: 'the workspace has as many open event streams on this server as it may; close one, or retry after `Retry-After` seconds',
  internal_error: 'never on purpose: any 500 is a bug',
  unavailable: 'the database (or another dependency) does not answer; retry later',
};

const ALL_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

const errorDetail = z
  .strictObject({
    path: z.string().meta({ description: 'The field (dotted, `[n]` for list items), the query parameter, or `(body)`.' }),
    message: z.string(),
  })
  .meta({ id: 'ErrorDetail' });

/** The body of every error answer; `codes` narrows `code` to those one answer can carry. */
export function errorEnvelope(codes: readonly [ErrorCode, ...ErrorCode[]] | ErrorCode[]) {
  return z.strictObject({
    error: z.strictObject({
      code: z.enum(codes as [ErrorCode, ...ErrorCode[]]).meta({ description: 'Stable snake_case.' }),
      message: z.string().meta({ description: 'A sentence for people; may change.' }),
      details: z.array(errorDetail).optional().meta({ description: 'On validation errors: one entry per problem.' }),
    }),
  });
}

/** Every code with its status and meaning, as one schema. */
export const errorSchema = errorEnvelope(ALL_CODES).meta({
  id: 'Error',
  description: ALL_CODES.map((c) => `\`${c}\` (${ERROR_STATUS[c]}): ${WHEN[c]}.`).join('\n'),
});

export function describeCodes(codes: ErrorCode[], limitBytes: number | undefined): string {
  return codes
    .map((c) => `\`${c}\`: ${c === 'payload_too_large' && limitBytes ? `the body is over ${limitBytes.toLocaleString('en')} bytes` : WHEN[c]}.`)
    .join(' ');
}
