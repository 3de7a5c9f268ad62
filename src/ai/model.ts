import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import OpenAI from 'openai';
import { AddressRefused, allowedAddress } from '../common/outbound-address.ts';
import { MODEL_ANSWER_JSON_SCHEMA } from './answer.ts';
import type { ChatMessage } from './prompt.ts';

/**
 * The owner's model: any server that speaks OpenAI's chat-completions API (OpenAI, Ollama, vLLM,
 * llama.cpp's server, LiteLLM), through the `openai` package. The answer is asked for as JSON of
 * a schema (`response_format: json_schema`); a server that refuses that (a 400 naming it) is
 * asked again with the same schema as the one tool it must call. One call is one attempt: the
 * run's activity policy retries, within its time budget.
 *
 * Every connection goes to an address checked by the rules of outgoing requests
 * (src/common/outbound-address.ts), resolved once and pinned, like http_request's.
 */

/** The model refused the request for good (a wrong key, an unknown model, an address not allowed): no retry helps. */
export class ModelRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelRefused';
  }
}

export type ModelConfig = { baseUrl: string; model: string; apiKey: string | null };

const TOOL_NAME = 'answer_customer';
/** Statuses a later attempt may not meet: anything else (408, 409, 429, 5xx) is worth retrying. */
const REFUSALS = new Set([400, 401, 403, 404, 405, 413, 415, 422]);

export class ModelClient {
  private readonly client: OpenAI;
  private readonly config: ModelConfig;

  constructor(config: ModelConfig, opts: { httpAllow: string[]; timeoutMs: number }) {
    this.config = config;
    this.client = new OpenAI({
      baseURL: config.baseUrl,
      // Local servers take any key; the package insists on one.
      apiKey: config.apiKey ?? 'none',
      timeout: opts.timeoutMs,
      maxRetries: 0,
      // The package's own logging (OPENAI_LOG=debug) would print requests: Deskflow logs what it needs itself.
      logLevel: 'off',
      fetch: checkedFetch(opts.httpAllow),
    });
  }

  /** The model's answer as text (the JSON it was asked for, from its content or its tool call), or null when it said nothing. */
  async complete(messages: ChatMessage[]): Promise<string | null> {
    try {
      return await this.withJsonSchema(messages);
    } catch (err) {
      // Servers without structured output answer 400 about response_format: ask for a tool call instead.
      if (err instanceof OpenAI.BadRequestError && /response_format|json_schema|structured/i.test(err.message)) {
        return this.withToolCall(messages).catch((e) => Promise.reject(this.failure(e)));
      }
      throw this.failure(err);
    }
  }

  /** The failure as the run treats it, its message without the key should a server have echoed it (it ends up in turns and histories). */
  private failure(err: unknown): Error {
    const failure = classify(err);
    const key = this.config.apiKey;
    if (key && failure.message.includes(key)) failure.message = failure.message.replaceAll(key, '[redacted]');
    return failure;
  }

  private async withJsonSchema(messages: ChatMessage[]): Promise<string | null> {
    const completion = await this.client.chat.completions.create({
      model: this.config.model,
      messages,
      temperature: 0.2,
      response_format: { type: 'json_schema', json_schema: { name: 'support_answer', strict: true, schema: MODEL_ANSWER_JSON_SCHEMA as unknown as Record<string, unknown> } },
    });
    const message = completion.choices[0]?.message;
    const call = message?.tool_calls?.find((c) => c.type === 'function');
    return message?.content ?? (call && 'function' in call ? call.function.arguments : null) ?? null;
  }

  private async withToolCall(messages: ChatMessage[]): Promise<string | null> {
    const completion = await this.client.chat.completions.create({
      model: this.config.model,
      messages,
      temperature: 0.2,
      tools: [{ type: 'function', function: { name: TOOL_NAME, description: 'Answer the customer, or hand the ticket to a person.', parameters: MODEL_ANSWER_JSON_SCHEMA as unknown as Record<string, unknown> } }],
      tool_choice: { type: 'function', function: { name: TOOL_NAME } },
    });
    const message = completion.choices[0]?.message;
    const call = message?.tool_calls?.find((c) => c.type === 'function');
    return (call && 'function' in call ? call.function.arguments : null) ?? message?.content ?? null;
  }
}

/** A failed call as the run treats it: ModelRefused for good, anything else to retry. Never with the key in it. */
function classify(err: unknown): Error {
  if (err instanceof ModelRefused) return err;
  if (err instanceof OpenAI.APIError && err.status !== undefined && REFUSALS.has(err.status)) {
    return new ModelRefused(`the model server answered ${err.status}: ${shortMessage(err)}`);
  }
  if (err instanceof OpenAI.APIConnectionError) {
    const cause = err.cause;
    if (cause instanceof AddressRefused) return new ModelRefused(cause.message);
    return new Error(`the model server could not be reached: ${err instanceof OpenAI.APIConnectionTimeoutError ? 'no answer in time' : (cause as Error | undefined)?.message ?? err.message}`);
  }
  if (err instanceof OpenAI.APIError) return new Error(`the model server answered ${err.status ?? 'with an error'}: ${shortMessage(err)}`);
  return err instanceof Error ? err : new Error(String(err));
}

function shortMessage(err: InstanceType<typeof OpenAI.APIError>): string {
  return (err.message || 'no message').replace(/\s+/g, ' ').slice(0, 300);
}

type FetchInit = { method?: string; headers?: unknown; body?: unknown; signal?: AbortSignal | null };

/**
 * fetch for the openai package over node:http(s), connecting only to the address the outgoing
 * rules allowed for the URL's host (checked per request, pinned for the connection).
 */
export function checkedFetch(allow: string[]) {
  return async (input: string | URL | Request, init: FetchInit = {}): Promise<Response> => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const target = await allowedAddress(url, allow);
    const headers: Record<string, string> = {};
    new Headers(init.headers as ConstructorParameters<typeof Headers>[0]).forEach((value, key) => (headers[key] = value));
    const body = typeof init.body === 'string' ? init.body : init.body == null ? undefined : String(init.body);
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    return new Promise<Response>((resolve, reject) => {
      const request = (url.protocol === 'https:' ? https : http).request(
        url,
        {
          method: init.method ?? 'GET',
          headers,
          signal: init.signal ?? undefined,
          lookup: (_host, opts, cb) => {
            if ((opts as { all?: boolean }).all) (cb as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [target]);
            else cb(null, target.address, target.family);
          },
        },
        (res) => {
          const responseHeaders = new Headers();
          for (const [key, value] of Object.entries(res.headers)) {
            if (Array.isArray(value)) for (const v of value) responseHeaders.append(key, v);
            else if (value !== undefined) responseHeaders.set(key, value);
          }
          const status = res.statusCode ?? 500;
          const noBody = status === 204 || status === 304 || init.method === 'HEAD';
          if (noBody) res.resume();
          resolve(new Response(noBody ? null : (Readable.toWeb(res) as ReadableStream), { status, statusText: res.statusMessage, headers: responseHeaders }));
        },
      );
      request.on('error', reject);
      if (body !== undefined) request.write(body);
      request.end();
    });
  };
}
