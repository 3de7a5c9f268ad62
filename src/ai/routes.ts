import Router from '@koa/router';
import { jsonBody, MiB } from '../http/body.ts';
import { operation } from '../http/operation.ts';
import type { AppState } from '../http/state.ts';
import { aiSettingsEnvelope, presentSettings } from './presenter.ts';
import { updateAiSettingsBody } from './schema.ts';

/** The AI owner's settings of the key's workspace; mounted under /api/ai, behind the API key (app.ts). */
export function aiSettingsRoutes(): Router<AppState> {
  const router = new Router<AppState>();

  const get = operation({
    operationId: 'getAiSettings',
    summary: 'Get the AI owner’s settings',
    tag: 'AI',
    responses: { 200: { description: 'The settings (the defaults until changed); the model’s key only as `apiKeySet`.', schema: aiSettingsEnvelope } },
  });
  router.get('/', get, async (ctx) => {
    ctx.body = { ai: presentSettings(await ctx.state.services.ai.get(ctx.state.workspaceId)) };
  });

  const update = operation({
    operationId: 'updateAiSettings',
    summary: 'Change the AI owner’s settings',
    description:
      'Replaces the fields given (`model` as a whole). Turning the owner on makes it take up the tickets already assigned to `ai` that wait for an answer. `model.baseUrl` is held to the address rules of `http_request` (a private or loopback address only where DESKFLOW_HTTP_ALLOW lets it).',
    tag: 'AI',
    body: updateAiSettingsBody,
    responses: { 200: { description: 'The settings after the change.', schema: aiSettingsEnvelope } },
    errors: ['forbidden'],
  });
  router.patch('/', update, jsonBody(MiB), async (ctx) => {
    const settings = await ctx.state.services.ai.update(ctx.state.workspaceId, update.body(ctx));
    ctx.body = { ai: presentSettings(settings) };
  });

  return router;
}
