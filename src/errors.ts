/**
 * Errors a request can end with. Each carries a stable snake_case code and its HTTP status;
 * the error middleware turns them into `{ error: { code, message, details? } }`.
 */
export type ErrorDetail = { path: string; message: string };

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

export const conflict = (code: string, message: string) => new AppError(409, code, message);

export const payloadTooLarge = (limitBytes: number) =>
  new AppError(413, 'payload_too_large', `The request body exceeds the limit of ${limitBytes} bytes.`);

export const unsupportedMediaType = () =>
  new AppError(415, 'unsupported_media_type', 'The request body must be sent as application/json.');

export const rateLimited = (retryAfterSeconds: number) =>
  new AppError(429, 'rate_limited', 'Too many requests for this API key; retry later.', undefined, {
    'Retry-After': String(retryAfterSeconds),
  });

export const unavailable = (message = 'A dependency of the service is unavailable; retry later.') =>
  new AppError(503, 'unavailable', message);
