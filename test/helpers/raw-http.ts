import http from 'node:http';

export type RawResponse = { status: number; headers: http.IncomingHttpHeaders; text: string; body: any };

export type RawRequest = {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Send the body with `Transfer-Encoding: chunked` (no Content-Length), in chunks of `chunkSize` bytes. */
  chunked?: boolean;
  chunkSize?: number;
};

/**
 * One request over a fresh connection with node:http, for what fetch cannot do: chunked bodies
 * without Content-Length, and bodies the server answers (413, 401) before it has read them. The
 * body is written chunk by chunk, honouring back-pressure, and writing stops as soon as the
 * response arrives; a write that fails because the server stopped reading (EPIPE, ECONNRESET)
 * is not an error as long as a response was received.
 */
export function rawRequest(baseUrl: string, opts: RawRequest): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const body = typeof opts.body === 'string' ? Buffer.from(opts.body) : opts.body;
  const headers: Record<string, string> = { ...opts.headers };
  if (body && opts.chunked) headers['transfer-encoding'] = 'chunked';
  else if (body) headers['content-length'] = String(body.length);

  return new Promise<RawResponse>((resolve, reject) => {
    let response: http.IncomingMessage | undefined;
    let settled = false;
    const finish = (result: RawResponse | Error) => {
      if (settled) return;
      settled = true;
      req.destroy();
      if (result instanceof Error) reject(result);
      else resolve(result);
    };

    const req = http.request(
      { host: url.hostname, port: url.port, method: opts.method, path: opts.path, headers, agent: false },
      (res) => {
        response = res;
        const parts: Buffer[] = [];
        res.on('data', (chunk: Buffer) => parts.push(chunk));
        res.on('error', (err) => finish(err));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            /* not JSON: the assertion shows the text */
          }
          finish({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
        });
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      // The server may stop reading once it has answered; the answer is what counts.
      if (response && (err.code === 'EPIPE' || err.code === 'ECONNRESET')) return;
      if (!response) finish(new Error(`request failed before any response: ${err.code ?? err.message}`));
    });

    void (async () => {
      if (body) {
        const size = opts.chunkSize ?? 64 * 1024;
        for (let offset = 0; offset < body.length && !response && !req.destroyed; offset += size) {
          const ok = req.write(body.subarray(offset, offset + size));
          if (!ok) await drainedOrAnswered(req);
        }
      }
      if (!response && !req.destroyed) req.end();
    })();
  });
}

/** Resolves when the request can take more data, or has been answered or closed meanwhile. */
function drainedOrAnswered(req: http.ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const events = ['drain', 'response', 'close'] as const;
    const done = () => {
      for (const e of events) req.off(e, done);
      resolve();
    };
    for (const e of events) req.on(e, done);
  });
}
