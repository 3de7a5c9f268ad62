import Router from '@koa/router';
import { z } from 'zod';
import { findOr404 } from '../common/find-or-404.ts';
import { AppError, invalidJson, validationFailed } from '../errors.ts';
import { MiB } from '../http/body.ts';
import { readRawJsonBody } from '../http/raw-body.ts';
import { declaresJson, emptyJsonBody, jsonObject } from '../http/json.ts';
import type { AppState } from '../http/state.ts';
import { Workflow } from '../workflows/entity.ts';
import { executionEnvelope } from '../executions/presenter.ts';
import { operation } from '../http/operation.ts';
import { verifyWebhookSignature } from './webhook-signature.ts';

const webhookUnauthorized = (reason: string) => new AppError(401, 'unauthorized', `Webhook signature rejected: ${reason}.`);

/**
 * POST /api/workflows/:id/webhook (docs/automations.md, "Webhooks"): no API key; the body is signed with the
 * workflow's secret. The JSON body becomes the run's `data`; its optional `ticketId` names
 * a ticket of the workflow's workspace.
 */
export function webhookRoutes(): Router<AppState> {
  const router = new Router<AppState>();

  const webhook = operation({
    operationId: 'startWebhookWorkflow',
    summary: 'Start a webhook workflow (signed, no API key)',
    description:
      'The body becomes the run’s `data`; an optional `ticketId` in it names a ticket of the workspace. ' +
      'Signed with the workflow’s secret: `X-Deskflow-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, `t` within 300 seconds.',
    tag: 'Executions',
    security: 'none',
    headers: z.object({ 'X-Deskflow-Signature': z.string().meta({ description: '`t=<unix seconds>,v1=<64 hex digits>`; several `v1=` may be given.' }) }),
    body: z.looseObject({ ticketId: z.string().optional() }),
    rawBody: { limitBytes: MiB, optional: true },
    responses: { 202: { description: 'The execution, started (`triggeredBy: "webhook"`).', schema: executionEnvelope } },
    errors: ['unauthorized', 'workflow_inactive', 'unavailable'],
  });
  router.post('/api/workflows/:id/webhook', webhook, async (ctx) => {
    const { em, triggers, executions } = ctx.state.services;
    const workflow = await findOr404(em, Workflow, ctx.params.id, { triggerType: 'webhook', deletedAt: null, webhookSecret: { $ne: null } }, 'Webhook');
    const header = ctx.get('x-deskflow-signature') || undefined;
    if (!header) throw webhookUnauthorized('the X-Deskflow-Signature header is missing');

    const raw = await readRawJsonBody(ctx, MiB);
    const problem = verifyWebhookSignature({ header, secret: workflow.webhookSecret!, rawBody: raw, nowSeconds: Math.floor(Date.now() / 1000) });
    if (problem) throw webhookUnauthorized(problem);

    const data = parseObject(raw, declaresJson(ctx));
    const ticketId = data.ticketId;
    if (ticketId !== undefined && typeof ticketId !== 'string') {
      throw validationFailed([{ path: 'ticketId', message: 'ticketId must be a string.' }]);
    }
    const execution = await triggers.run(workflow, 'webhook', { ticketId, data });
    ctx.status = 202;
    ctx.body = { execution: await executions.view(execution) };
  });

  return router;
}

/** The body as a JSON object; no body at all reads as `{}`, an empty one declared as JSON is refused. */
function parseObject(raw: Buffer, declaredJson: boolean): Record<string, unknown> {
  if (raw.length === 0) {
    if (declaredJson) throw emptyJsonBody();
    return {};
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
  } catch (err) {
    throw invalidJson(err instanceof TypeError ? 'The request body is not valid UTF-8.' : 'The request body is not valid JSON.');
  }
  return jsonObject(parsed);
}
