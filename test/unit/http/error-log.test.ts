import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { unavailable } from '../../../src/errors.ts';
import { errorHandler } from '../../../src/http/errors.ts';
import { createLogger } from '../../../src/logger.ts';

/** A request that fails with `err`, answered by the error handler; the log lines it wrote. */
async function logOf(err: unknown): Promise<{ status: number; lines: Array<Record<string, unknown>> }> {
  const lines: Array<Record<string, unknown>> = [];
  const app = new Koa();
  app.use(errorHandler(createLogger('debug', (line) => lines.push(JSON.parse(line)))));
  app.use(() => {
    throw err;
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    return { status: res.status, lines };
  } finally {
    server.close();
  }
}

describe('the error log of a request', () => {
  it('names the cause and the gRPC status of a Temporal call that failed, not only the 503 it became', async () => {
    const grpc = Object.assign(new Error('14 UNAVAILABLE: No connection established'), { code: 14, details: 'No connection established', metadata: {} });
    const { ServiceError } = await import('@temporalio/client');
    const err = Object.assign(unavailable('The workflow engine is unavailable; retry later.'), { cause: new ServiceError('Failed to start Workflow', { cause: grpc }) });
    const { status, lines } = await logOf(err);
    expect(status).toBe(503);
    expect(lines).toEqual([
      expect.objectContaining({
        msg: 'dependency unavailable',
        causes: expect.stringContaining('ServiceError: Failed to start Workflow; cause: 14 UNAVAILABLE: No connection established'),
        grpcCode: 14,
        grpcStatus: 'UNAVAILABLE',
        grpcDetails: 'No connection established',
      }),
    ]);
  });

  it('keeps the stack of a bug, without causes when there are none', async () => {
    const { status, lines } = await logOf(new TypeError('x is not a function'));
    expect(status).toBe(500);
    expect(lines[0]).toMatchObject({ msg: 'unhandled error', error: expect.stringMatching(/^TypeError: x is not a function\n\s+at /) });
    expect(lines[0]).not.toHaveProperty('causes');
  });
});
