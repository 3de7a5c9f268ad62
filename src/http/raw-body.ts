import type { Context } from 'koa';
import { payloadTooLarge } from '../errors.ts';
import { precheckBody } from './body.ts';

/**
 * Reads the request body as bytes, refusing more than `limitBytes` (declared or received).
 * For endpoints that must see the exact bytes, such as a signed webhook.
 */
export async function readRawJsonBody(ctx: Context, limitBytes: number): Promise<Buffer> {
  ctx.state.bodyLimit = limitBytes;
  precheckBody(ctx, limitBytes);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const req = ctx.req;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        cleanup();
        req.resume(); // discard the rest so the 413 can still be answered
        reject(payloadTooLarge(limitBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
