import Router from '@koa/router';
import { jsonBody, MiB } from '../http/body.ts';
import { operation } from '../http/operation.ts';
import type { AppState } from '../http/state.ts';
import { calendarEnvelope, calendarList, presentCalendar } from './presenter.ts';
import { createCalendarBody, updateCalendarBody } from './schema.ts';

/** Calendars (business hours) of the key's workspace; mounted under /api/calendars, behind the API key (app.ts). */
export function calendarRoutes(): Router<AppState> {
  const router = new Router<AppState>();

  const list = operation({
    operationId: 'listCalendars',
    summary: 'List calendars',
    responses: { 200: { description: 'The calendars, newest first.', schema: calendarList } },
  });
  router.get('/', list, async (ctx) => {
    const calendars = await ctx.state.services.calendars.list(ctx.state.workspaceId);
    ctx.body = { calendars: calendars.map(presentCalendar) };
  });

  const create = operation({
    operationId: 'createCalendar',
    summary: 'Create a calendar',
    description: 'Business hours for workflows: an IANA time zone, weekly opening hours (an interval never crosses midnight) and holidays.',
    body: createCalendarBody,
    responses: { 201: { description: 'The new calendar.', schema: calendarEnvelope } },
  });
  router.post('/', create, jsonBody(MiB), async (ctx) => {
    const input = create.body(ctx);
    const calendar = await ctx.state.services.calendars.create(ctx.state.workspaceId, input);
    ctx.status = 201;
    ctx.body = { calendar: presentCalendar(calendar) };
  });

  const get = operation({
    operationId: 'getCalendar',
    summary: 'Get a calendar',
    responses: { 200: { description: 'The calendar.', schema: calendarEnvelope } },
  });
  router.get('/:id', get, async (ctx) => {
    const calendar = await ctx.state.services.calendars.get(ctx.state.workspaceId, ctx.params.id);
    ctx.body = { calendar: presentCalendar(calendar) };
  });

  const update = operation({
    operationId: 'updateCalendar',
    summary: 'Update a calendar',
    description: 'Replaces the fields given (`hours` and `holidays` as whole lists). Runs read the calendar when they need it, so they follow the change from then on.',
    body: updateCalendarBody,
    responses: { 200: { description: 'The calendar after the update.', schema: calendarEnvelope } },
  });
  router.patch('/:id', update, jsonBody(MiB), async (ctx) => {
    const { calendars } = ctx.state.services;
    await calendars.get(ctx.state.workspaceId, ctx.params.id);
    const input = update.body(ctx);
    const calendar = await calendars.update(ctx.state.workspaceId, ctx.params.id, input);
    ctx.body = { calendar: presentCalendar(calendar) };
  });

  const remove = operation({
    operationId: 'deleteCalendar',
    summary: 'Delete a calendar',
    description: 'Refused (409 `calendar_in_use`, naming them) while an active workflow names the calendar or an active SLA policy counts its open time.',
    responses: { 204: { description: 'Deleted.' } },
    errors: ['calendar_in_use'],
  });
  router.delete('/:id', remove, async (ctx) => {
    await ctx.state.services.calendars.delete(ctx.state.workspaceId, ctx.params.id);
    ctx.status = 204;
  });

  return router;
}
