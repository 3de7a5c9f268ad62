/**
 * Errors a request can end with. Each carries a stable snake_case code and its HTTP status;
 * the error middleware turns them into `{ error: { code, message, details? } }`.
 */
export type ErrorDetail = { path: string; message: string };

/**
 * Every code an HTTP answer can carry, with its status (docs/contract.md §1); the OpenAPI
 * document lists them from this table. (Workflow activities use AppError with codes of their
 * own, which never reach a client.)
 */
export const ERROR_STATUS = {
  invalid_json: 400,
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  outbound_not_allowed: 409,
  execution_finished: 409,
  workflow_inactive: 409,
  idempotency_key_reused: 409,
  calendar_in_use: 409,
  approval_not_pending: 409,
  already_decided: 409,
  draft_not_waiting: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  too_many_streams: 429,
  internal_error: 500,
  unavailable: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;

  constructor(status: number, code: string, message: string, details?: ErrorDetail[], headers: Record<string, string> = {}) {
    super(message);
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

export const invalidJson = (message = 'The request body must be a JSON object.') =>
  new AppError(400, 'invalid_json', message);

export const validationFailed = (details: ErrorDetail[], message = 'The request is invalid.') =>
  new AppError(400, 'validation_failed', message, details);

export const unauthorized = (message = 'A valid API key is required: send "Authorization: Bearer <key>".') =>
  new AppError(401, 'unauthorized', message, undefined, { 'WWW-Authenticate': 'Bearer' });

export const forbidden = (message: string) => new AppError(403, 'forbidden', message);

export const notFound = (what = 'Resource') => new AppError(404, 'not_found', `${what} not found.`);

export const conflict = (code: Extract<ErrorCode, 'outbound_not_allowed' | 'execution_finished' | 'workflow_inactive' | 'idempotency_key_reused' | 'calendar_in_use' | 'approval_not_pending' | 'already_decided' | 'draft_not_waiting'>, message: string) =>
  new AppError(409, code, message);

/** A write whose `If-Match` names an older state of the resource; `headers` carry its current ETag. */
export const preconditionFailed = (message: string, details: ErrorDetail[], headers: Record<string, string>) =>
  new AppError(412, 'precondition_failed', message, details, headers);

export const payloadTooLarge = (limitBytes: number) =>
  new AppError(413, 'payload_too_large', `The request body exceeds the limit of ${limitBytes} bytes.`);

export const unsupportedMediaType = () =>
  new AppError(415, 'unsupported_media_type', 'The request body must be sent as application/json.');

export const rateLimited = (retryAfterSeconds: number) =>
  new AppError(429, 'rate_limited', 'Too many requests for this API key; retry later.', undefined, {
    'Retry-After': String(retryAfterSeconds),
  });

/** One more event stream than a workspace may keep open on one server (GET /api/v1/events). */
export const tooManyStreams = (limit: number) =>
  new AppError(429, 'too_many_streams', `This workspace already has ${limit} open event streams on this server; close one, or retry later.`, undefined, {
    'Retry-After': '5',
  });

export const unavailable = (message = 'A dependency of the service is unavailable; retry later.') =>
  new AppError(503, 'unavailable', message);
