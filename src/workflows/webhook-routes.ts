import Router from '@koa/router';
import { AppError, conflict, invalidJson, notFound, validationFailed } from '../errors.ts';
import { MiB } from '../http/body.ts';
import { readRawJsonBody } from '../http/raw-body.ts';
import { declaresJson, emptyJsonBody, jsonObject } from '../http/json.ts';
import type { AppState } from '../http/state.ts';
import { isUuid } from '../ids.ts';
import { presentExecution } from '../executions/presenter.ts';
import { ticketContext } from '../tickets/presenter.ts';
import { Workflow } from './entity.ts';
import { verifyWebhookSignature } from './webhook.ts';

const webhookUnauthorized = (reason: string) => new AppError(401, 'unauthorized', `Webhook signature rejected: ${reason}.`);

/**
 * POST /api/workflows/:id/webhook (CONTRACT §8): no API key; the body is signed with the
 * workflow's secret. The JSON body becomes the run's `data`; its optional `ticketId` names
 * a ticket of the workflow's workspace.
 */
export function webhookRoutes(): Router<AppState> {
  const router = new Router<AppState>();

  router.post('/api/workflows/:id/webhook', async (ctx) => {
    const { em, tickets, executions } = ctx.state.services;
    const workflow = isUuid(ctx.params.id)
      ? await em.findOne(Workflow, { id: ctx.params.id, triggerType: 'webhook', deletedAt: null })
      : null;
    if (!workflow || !workflow.webhookSecret) throw notFound('Webhook');
    const header = ctx.get('x-deskflow-signature') || undefined;
    if (!header) throw webhookUnauthorized('the X-Deskflow-Signature header is missing');

    const raw = await readRawJsonBody(ctx, MiB);
    const problem = verifyWebhookSignature({ header, secret: workflow.webhookSecret, rawBody: raw, nowSeconds: Math.floor(Date.now() / 1000) });
    if (problem) throw webhookUnauthorized(problem);

    const data = parseObject(raw, declaresJson(ctx));
    const ticketId = data.ticketId;
    if (ticketId !== undefined && typeof ticketId !== 'string') {
      throw validationFailed([{ path: 'ticketId', message: 'ticketId must be a string.' }]);
    }
    const ticket = ticketId !== undefined ? await tickets.get(workflow.workspace, ticketId) : null;
    if (!workflow.isActive) throw conflict('workflow_inactive', 'The workflow is inactive; activate it to accept webhooks.');

    const execution = await executions.createAndStart({
      workflow,
      triggeredBy: 'webhook',
      ticketId: ticket?.id ?? null,
      context: { ...(ticket ? { ticket: ticketContext(ticket) } : {}), data },
    });
    const [item] = await executions.withSteps([execution]);
    ctx.status = 202;
    ctx.body = { execution: presentExecution(item.execution, item.steps) };
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
