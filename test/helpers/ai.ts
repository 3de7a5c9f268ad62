// Steps of the AI owner's tests: articles, settings, a ticket given to `ai`, and waiting for
// what the owner did (its turns).
import { expect } from 'vitest';
import type { Client } from './app.ts';
import { expectStatus, openTicket } from './api.ts';
import { eventually } from './poll.ts';

export const CUSTOMER = 'customer@example.com';

export const PASSWORD_ARTICLE = {
  title: 'Reset your password',
  body: 'To reset your password, open Settings, choose Security and click "Reset password". The link we mail you works for one hour.',
  language: 'en',
};
export const PRINTER_ARTICLE = {
  title: 'Printer troubleshooting',
  body: 'If the printer does not print, check its cable, restart it and make sure the driver is installed.',
  language: 'en',
};

export async function addArticle(api: Client, article: Record<string, unknown>): Promise<string> {
  const res = await api.post('/api/knowledge', article);
  expectStatus(res, 201);
  return res.body.article.id;
}

export async function setOwner(api: Client, settings: Record<string, unknown>): Promise<any> {
  const res = await api.patch('/api/ai', settings);
  expectStatus(res, 200);
  return res.body.ai;
}

/** A ticket whose customer asks `body`, then assigned to `ai`; returns its id. */
export async function ticketForAi(api: Client, body: string, over: Record<string, unknown> = {}): Promise<string> {
  const id = await openTicket(api, { subject: 'Help', body, language: 'en', ...over });
  expectStatus(await api.patch(`/api/v1/tickets/${id}`, { assignedTo: 'ai' }), 200);
  return id;
}

export async function turnsOf(api: Client, ticketId: string): Promise<any[]> {
  const res = await api.get(`/api/v1/tickets/${ticketId}/ai`);
  expectStatus(res, 200);
  return res.body.turns;
}

/** Waits until the ticket has `count` turns; returns them. */
export function turnsAfter(api: Client, ticketId: string, count: number, timeoutMs = 20_000): Promise<any[]> {
  return eventually(async () => {
    const turns = await turnsOf(api, ticketId);
    return turns.length >= count ? turns : undefined;
  }, timeoutMs, `${count} AI turn(s) on ticket ${ticketId}`);
}

export async function customerWrites(api: Client, ticketId: string, body: string): Promise<void> {
  const res = await api.post(`/api/v1/tickets/${ticketId}/messages`, { body, senderEmail: CUSTOMER });
  expectStatus(res, 201);
  expect(res.body.meta.messageAddedEvent).toBe('emitted');
}
