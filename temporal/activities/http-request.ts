import http from 'node:http';
import https from 'node:https';
import { ApplicationFailure } from '@temporalio/activity';
import type { ActionData } from '../../src/graph/index.ts';
import { AddressRefused, allowedAddress, UnresolvedHost } from '../../src/common/outbound-address.ts';

export { inCidr, isRestricted } from '../../src/common/outbound-address.ts';

type HttpAction = Extract<ActionData, { actionType: 'http_request' }>;

export type HttpRequestOptions = {
  /** DESKFLOW_HTTP_ALLOW: hosts or CIDRs that may be reached although private. */
  allow: string[];
  timeoutMs?: number;
};

export type HttpResult = { status: number; body: string; truncated: boolean };

const MAX_EXCERPT_BYTES = 2048;
const MAX_REDIRECTS = 5;
const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * One attempt of an http_request action (docs/contract.md §8). 2xx/3xx-final answers are the step's
 * result; a 4xx fails the action at once; a network error or 5xx is thrown as retryable so
 * the activity's retry policy tries again with backoff, sending the same Idempotency-Key.
 * Every address, including each redirect's, is checked after DNS resolution and the
 * connection goes to the checked address.
 */
export async function performHttpRequest(action: HttpAction, idempotencyKey: string, options: HttpRequestOptions): Promise<HttpResult> {
  let url = parseUrl(action.url);
  let method: string = action.method;
  let body = encodeBody(action.body);
  const headers: Record<string, string> = { ...(action.headers ?? {}) };
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['content-type'] = typeof action.body === 'string' ? 'text/plain; charset=utf-8' : 'application/json';
  }
  headers['idempotency-key'] = idempotencyKey;
  headers['user-agent'] ??= 'Deskflow-Automation/1';

  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  for (let hop = 0; ; hop++) {
    const address = await checkedAddress(url, options.allow);
    const response = await send(url, address, method, headers, body, deadline);
    const location = response.headers.location;
    if (response.status >= 300 && response.status < 400 && location && hop < MAX_REDIRECTS) {
      url = parseUrl(new URL(location, url).toString());
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
      }
      continue;
    }
    const result: HttpResult = { status: response.status, body: response.excerpt, truncated: response.truncated };
    const summary = `HTTP ${response.status} from ${url.origin}${url.pathname}${response.excerpt ? `: ${response.excerpt.slice(0, 200)}` : ''}`;
    if (response.status >= 500) throw ApplicationFailure.retryable(summary, 'HttpServerError', result);
    if (response.status >= 400) throw ApplicationFailure.nonRetryable(summary, 'HttpClientError', result);
    return result;
  }
}

function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw ApplicationFailure.nonRetryable(`"${raw}" is not a valid URL.`, 'InvalidUrl');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw ApplicationFailure.nonRetryable(`Only http and https URLs can be requested, not ${url.protocol}`, 'InvalidUrl');
  }
  return url;
}

function encodeBody(body: HttpAction['body']): string | undefined {
  if (body === undefined) return undefined;
  return typeof body === 'string' ? body : JSON.stringify(body);
}

/** Resolves the host and refuses loopback, private, link-local and metadata addresses unless allowed (src/common/outbound-address.ts). */
async function checkedAddress(url: URL, allow: string[]): Promise<{ address: string; family: number }> {
  try {
    return await allowedAddress(url, allow);
  } catch (err) {
    if (err instanceof AddressRefused) throw ApplicationFailure.nonRetryable(err.message, 'AddressRefused');
    if (err instanceof UnresolvedHost) throw ApplicationFailure.retryable(err.message, 'DnsError');
    throw err;
  }
}

type RawResponse = { status: number; headers: http.IncomingHttpHeaders; excerpt: string; truncated: boolean };

function send(
  url: URL,
  target: { address: string; family: number },
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  deadline: number,
): Promise<RawResponse> {
  const timeout = Math.max(1, deadline - Date.now());
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? https : http).request(
      url,
      {
        method,
        headers: body !== undefined ? { ...headers, 'content-length': String(Buffer.byteLength(body)) } : headers,
        // Connect to the address that was checked, never to a second DNS answer.
        lookup: (_host, opts, cb) => {
          if ((opts as { all?: boolean }).all) (cb as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [target]);
          else cb(null, target.address, target.family);
        },
        timeout,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        response.on('data', (chunk: Buffer) => {
          if (size < MAX_EXCERPT_BYTES) chunks.push(chunk);
          size += chunk.length;
          if (size > MAX_EXCERPT_BYTES) {
            truncated = true;
            response.destroy();
            finish();
          }
        });
        response.on('end', finish);
        response.on('error', (err) => (truncated ? finish() : reject(err)));
        let done = false;
        function finish() {
          if (done) return;
          done = true;
          const excerpt = Buffer.concat(chunks).subarray(0, MAX_EXCERPT_BYTES).toString('utf8').replace(/\uFFFD+$/, '');
          resolve({ status: response.statusCode ?? 0, headers: response.headers, excerpt, truncated });
        }
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${timeout} ms`)));
    request.on('error', (err) => reject(ApplicationFailure.retryable(`Request to ${url.origin} failed: ${err.message}`, 'NetworkError')));
    if (body !== undefined) request.write(body);
    request.end();
  });
}
