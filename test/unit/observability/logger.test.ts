import { describe, expect, it } from 'vitest';
import { createLogger, errorFields } from '../../../src/logger.ts';
import { sdkLogger } from '../../../temporal/runtime.ts';

/** A logger writing to an array, as the process writes to stderr. */
function captured(level: Parameters<typeof createLogger>[0] = 'debug') {
  const lines: string[] = [];
  return { logger: createLogger(level, (line) => lines.push(line)), lines, parsed: () => lines.map((l) => JSON.parse(l)) };
}

describe('log lines', () => {
  it('are one JSON object per line with the level name, an ISO time, and msg before the fields', () => {
    const { logger, lines, parsed } = captured();
    logger.info('shutting down', { reason: 'SIGTERM' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('\n');
    expect(lines[0]).toContain('"msg":"shutting down","reason":"SIGTERM"');
    const [line] = parsed();
    expect(line).toMatchObject({ level: 'info', msg: 'shutting down', reason: 'SIGTERM', pid: process.pid });
    expect(new Date(line.time).toISOString()).toBe(line.time);
  });

  it('leave out entries below the configured level, and everything when silent', () => {
    const warn = captured('warn');
    warn.logger.debug('d');
    warn.logger.info('i');
    warn.logger.warn('w');
    warn.logger.error('e', { error: 'boom' });
    expect(warn.parsed().map((l) => [l.level, l.msg])).toEqual([
      ['warn', 'w'],
      ['error', 'e'],
    ]);
    const silent = captured('silent');
    silent.logger.error('e');
    expect(silent.lines).toEqual([]);
  });

  it('never show credentials: authorization headers, signatures, API keys, tokens and secrets are redacted', () => {
    const { logger, lines, parsed } = captured();
    logger.warn('request failed', {
      headers: { authorization: 'Bearer dfk_live_secret', 'x-deskflow-signature': 'sha256=abc123', accept: 'application/json' },
      authorization: 'Bearer dfk_top_level',
      apiKey: 'dfk_api_key',
      workflow: { id: 'w1', webhookSecret: 'whsec_1234', secret: 'plain-secret' },
      request: { headers: { authorization: 'Bearer nested', 'x-deskflow-signature': 'sha256=def' } },
      token: 'metrics-token',
    });
    const text = lines.join('\n');
    for (const secret of ['dfk_live_secret', 'abc123', 'dfk_top_level', 'dfk_api_key', 'whsec_1234', 'plain-secret', 'Bearer nested', 'def', 'metrics-token']) {
      expect(text).not.toContain(secret);
    }
    expect(parsed()[0]).toMatchObject({
      headers: { authorization: '[redacted]', 'x-deskflow-signature': '[redacted]', accept: 'application/json' },
      authorization: '[redacted]',
      apiKey: '[redacted]',
      workflow: { id: 'w1', webhookSecret: '[redacted]', secret: '[redacted]' },
      request: { headers: { authorization: '[redacted]', 'x-deskflow-signature': '[redacted]' } },
      token: '[redacted]',
    });
  });

  it('keep the fields of the caller untouched (redaction works on the line only)', () => {
    const { logger } = captured();
    const fields = { headers: { authorization: 'Bearer x' } };
    logger.info('m', fields);
    expect(fields.headers.authorization).toBe('Bearer x');
  });
});

describe("the Temporal SDK's logger", () => {
  it("writes the SDK's lines through the process's logger, its levels mapped and errors as text", () => {
    const { logger, parsed } = captured('debug');
    const sdk = sdkLogger(logger);
    sdk.info('Worker state changed', { state: 'RUNNING', sdkComponent: 'worker' });
    sdk.log('WARN', 'Activity failed', { error: new Error('timed out'), activityType: 'httpRequest' });
    sdk.trace('fine detail');
    sdk.error('bad', { taskQueue: 'q' });
    const lines = parsed();
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      ['info', 'Worker state changed'],
      ['warn', 'Activity failed'],
      ['debug', 'fine detail'],
      ['error', 'bad'],
    ]);
    expect(lines[0]).toMatchObject({ state: 'RUNNING', sdkComponent: 'worker' });
    expect(lines[1].error).toContain('timed out');
  });
});

describe('errorFields', () => {
  it('gives a Temporal ServiceError its cause and the gRPC status and details the server answered', async () => {
    const { ServiceError } = await import('@temporalio/client');
    const grpc = Object.assign(new Error('3 INVALID_ARGUMENT: Namespace default has no mapping defined for search attribute DeskflowWorkflowName'), {
      code: 3,
      details: 'Namespace default has no mapping defined for search attribute DeskflowWorkflowName',
      metadata: {},
    });
    const fields = errorFields(new ServiceError('Failed to start Workflow', { cause: grpc }));
    expect(fields).toEqual({
      error: 'ServiceError: Failed to start Workflow; cause: 3 INVALID_ARGUMENT: Namespace default has no mapping defined for search attribute DeskflowWorkflowName',
      grpcCode: 3,
      grpcStatus: 'INVALID_ARGUMENT',
      grpcDetails: 'Namespace default has no mapping defined for search attribute DeskflowWorkflowName',
    });
    // What String(err) said before: the outermost message only.
    expect(String(new ServiceError('Failed to start Workflow', { cause: grpc }))).toBe('ServiceError: Failed to start Workflow');
  });

  it('is the message alone for a plain error, and survives odd values and cycles', () => {
    expect(errorFields(new Error('database unavailable'))).toEqual({ error: 'database unavailable' });
    expect(errorFields(new TypeError('x is not a function'))).toEqual({ error: 'TypeError: x is not a function' });
    expect(errorFields('a string')).toEqual({ error: 'a string' });
    const looped = new Error('outer');
    looped.cause = looped;
    expect(errorFields(looped)).toEqual({ error: 'outer' });
  });

  it('goes into a log line as fields of their own', () => {
    const { logger, parsed } = captured();
    logger.warn('starting pending executions failed; will retry', errorFields(Object.assign(new Error('14 UNAVAILABLE: No connection established'), { code: 14, details: 'No connection established' })));
    expect(parsed()[0]).toMatchObject({ msg: 'starting pending executions failed; will retry', grpcCode: 14, grpcStatus: 'UNAVAILABLE', grpcDetails: 'No connection established' });
  });
});
