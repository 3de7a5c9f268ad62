import Router from '@koa/router';
import { z } from 'zod';
import { API_ACTOR } from '../actor.ts';
import { jsonBody, MiB } from '../http/body.ts';
import { operation } from '../http/operation.ts';
import type { AppState } from '../http/state.ts';
import { idempotent } from '../idempotency/middleware.ts';
import { IDEMPOTENCY_KEY_REUSED, idempotencyHeaders } from '../idempotency/schema.ts';
import { presentNote, publicNote } from './presenter.ts';
import { addNoteBody } from './schema.ts';

/** Mounted under /api/v1/tickets, behind the API key (app.ts). Each route's operation(...) is its entry in GET /openapi.json. */
export function noteRoutes(): Router<AppState> {
  const router = new Router<AppState>();

  const list = operation({
    operationId: 'listNotes',
    summary: 'List the internal notes of a ticket',
    tag: 'Notes',
    responses: { 200: { description: 'Every note of the ticket, oldest first.', schema: z.strictObject({ data: z.array(publicNote).meta({ description: 'Oldest first.' }) }) } },
  });
  router.get('/:id/notes', list, async (ctx) => {
    const ticket = await ctx.state.services.tickets.get(ctx.state.workspaceId, ctx.params.id);
    const notes = await ctx.state.services.notes.list(ticket.id);
    ctx.body = { data: notes.map(presentNote) };
  });

  const add = operation({
    operationId: 'addNote',
    summary: 'Add an internal note',
    description:
      'A note for the team: never shown to the customer, not a message (not in the message list, never mailed, no customer-reply handling), and it leaves the ticket as it is. Writes a `note_added` event, which no workflow listens to.',
    tag: 'Notes',
    body: addNoteBody,
    headers: idempotencyHeaders,
    responses: { 201: { description: 'The note.', schema: z.strictObject({ data: publicNote }) } },
    errors: ['forbidden', IDEMPOTENCY_KEY_REUSED],
  });
  router.post('/:id/notes', add, jsonBody(MiB), idempotent, async (ctx) => {
    const ticket = await ctx.state.services.tickets.get(ctx.state.workspaceId, ctx.params.id);
    const input = add.body(ctx);
    const note = await ctx.state.services.notes.add(ticket, input, API_ACTOR);
    ctx.status = 201;
    ctx.body = { data: presentNote(note) };
  });

  return router;
}
