import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted OpenAI-compatible chat-completions server of the tests' own, on 127.0.0.1: each
 * request takes the next step of the script (or the default step once it is used up), and every
 * request is kept for the test to read (its headers and body).
 */
export type Step = {
  /** The answer's content: an object is sent as its JSON. */
  answer?: unknown;
  /** The answer as the arguments of a tool call instead of the content. */
  toolCall?: unknown;
  /** An error status, with an OpenAI-style error body (its `message`, if given). */
  status?: number;
  message?: string;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Close the connection without answering. */
  drop?: boolean;
  /** Refuse requests that ask for response_format (a server without structured output): 400. */
  noResponseFormat?: boolean;
};

export type ModelServer = {
  baseUrl: string;
  requests: Array<{ headers: http.IncomingHttpHeaders; body: any }>;
  /** Replaces the script; `fallback` answers once it is used up. */
  script: (steps: Step[], fallback?: Step) => void;
  close: () => Promise<void>;
};

export const reply = (body: string, citations: string[], reason = '') => ({ answer: { action: 'reply', body, citations, reason } });
export const handOff = (reason: string) => ({ answer: { action: 'handoff', body: '', citations: [], reason } });

export async function startModelServer(): Promise<ModelServer> {
  let steps: Step[] = [];
  let fallback: Step = { status: 500 };
  const requests: ModelServer['requests'] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', async () => {
      const body = raw ? JSON.parse(raw) : null;
      requests.push({ headers: req.headers, body });
      const step = steps.shift() ?? fallback;
      if (step.delayMs) await new Promise((resolve) => setTimeout(resolve, step.delayMs));
      if (step.drop) return req.socket.destroy();
      const send = (status: number, payload: unknown) => {
        if (res.destroyed) return;
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      if (step.noResponseFormat && body?.response_format) return send(400, { error: { message: 'response_format is not supported by this server', type: 'invalid_request_error' } });
      if (step.status) return send(step.status, { error: { message: step.message ?? `scripted ${step.status}`, type: 'server_error' } });
      const content = step.answer === undefined ? null : typeof step.answer === 'string' ? step.answer : JSON.stringify(step.answer);
      const toolCalls = step.toolCall === undefined ? undefined : [{ id: 'call_1', type: 'function', function: { name: 'answer_customer', arguments: JSON.stringify(step.toolCall) } }];
      send(200, {
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body?.model ?? 'scripted',
        choices: [{ index: 0, message: { role: 'assistant', content, ...(toolCalls ? { tool_calls: toolCalls } : {}) }, finish_reason: toolCalls ? 'tool_calls' : 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    script: (next, otherwise) => {
      steps = [...next];
      if (otherwise) fallback = otherwise;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
