import dns from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { ApplicationFailure } from '@temporalio/activity';
import type { ActionData } from '../../src/graph/index.ts';

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

/** Resolves the host and refuses loopback, private, link-local and metadata addresses unless allowed. */
async function checkedAddress(url: URL, allow: string[]): Promise<{ address: string; family: number }> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: Array<{ address: string; family: number }>;
  if (net.isIP(host)) addresses = [{ address: host, family: net.isIP(host) }];
  else {
    try {
      addresses = await dns.lookup(host, { all: true, verbatim: true });
    } catch (err) {
      throw ApplicationFailure.retryable(`Could not resolve ${host}: ${(err as Error).message}`, 'DnsError');
    }
  }
  const hostAllowed = allow.some((entry) => entry.toLowerCase() === host.toLowerCase());
  for (const a of addresses) {
    if (!hostAllowed && isRestricted(a.address) && !allow.some((entry) => inCidr(a.address, entry))) {
      throw ApplicationFailure.nonRetryable(
        `Refused to connect to ${host} (${a.address}): loopback, private, link-local and metadata addresses are blocked; list it in DESKFLOW_HTTP_ALLOW to allow it.`,
        'AddressRefused',
      );
    }
  }
  return addresses[0];
}

const RESTRICTED_V4 = ['0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24', '192.168.0.0/16', '198.18.0.0/15', '224.0.0.0/4', '240.0.0.0/4'];
const RESTRICTED_V6 = ['::/128', '::1/128', 'fc00::/7', 'fe80::/10', 'ff00::/8', 'fd00:ec2::254/128'];

export function isRestricted(address: string): boolean {
  const v4 = mappedV4(address);
  if (v4) return RESTRICTED_V4.some((cidr) => inCidr(v4, cidr));
  return RESTRICTED_V6.some((cidr) => inCidr(address, cidr));
}

/**
 * The IPv4 address an address stands for: itself, or the one embedded in an IPv6 address that
 * reaches it, in any spelling (::ffff:127.0.0.1 and ::ffff:7f00:1 alike): IPv4-mapped
 * (::ffff:0:0/96), IPv4-compatible (::/96), NAT64 (64:ff9b::/96) and 6to4 (2002::/16).
 */
function mappedV4(address: string): string | null {
  if (net.isIPv4(address)) return address;
  const bytes = ipv6Bytes(address);
  if (!bytes) return null;
  const zero = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  const v4 = (at: number) => bytes.slice(at, at + 4).join('.');
  if (zero(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return v4(12);
  if (zero(0, 12)) return v4(12); // ::a.b.c.d (:: and ::1 fall in 0.0.0.0/8 too)
  if (bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zero(4, 12)) return v4(12);
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return v4(2);
  return null;
}

/** The 16 bytes of an IPv6 address (a zone id is ignored), or null for anything else. */
function ipv6Bytes(address: string): number[] | null {
  const text = address.split('%')[0];
  if (!net.isIPv6(text)) return null;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  const head = tail ? text.slice(0, -tail[1].length) : text;
  const v4Groups = tail ? tail[1].split('.').map(Number) : [];
  const parts = (s: string | undefined) => (s ? s.split(':').filter((g) => g !== '') : []);
  const [left, right] = head.split('::').map(parts);
  // `::` stands for as many zero groups as the 8 (6 before a dotted IPv4 tail) are missing.
  const zeros = right === undefined ? [] : Array((tail ? 6 : 8) - left.length - right.length).fill('0');
  const groups = [...left, ...zeros, ...(right ?? [])];
  const bytes = groups.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
  return [...bytes, ...v4Groups];
}

/** True when `address` lies in `cidr` (an address alone means /32 or /128). Non-CIDR entries never match. */
export function inCidr(address: string, cidr: string): boolean {
  const [range, bitsText] = cidr.split('/');
  const v4 = mappedV4(address);
  const family = net.isIP(range);
  if (family === 0) return false;
  const list = new net.BlockList();
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const bits = bitsText === undefined ? (family === 4 ? 32 : 128) : Number(bitsText);
  try {
    list.addSubnet(range, bits, type);
    if (family === 4) return v4 !== null && list.check(v4, 'ipv4');
    return net.isIPv6(address) && list.check(address, 'ipv6');
  } catch {
    return false;
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
