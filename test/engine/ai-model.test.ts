import { describe, expect, it } from 'vitest';
import { aiOwnerWorkflowId } from '../../src/ai/engine.ts';
import { engineWorkspace, useEngineApp } from '../helpers/engine.ts';
import { useFixture } from '../helpers/fixture.ts';
import { getTicket, readMessages } from '../helpers/api.ts';
import { addArticle, PASSWORD_ARTICLE, PRINTER_ARTICLE, setOwner, ticketForAi, turnsAfter, turnsOf } from '../helpers/ai.ts';
import { handOff, reply, startModelServer, type ModelServer } from '../helpers/model-server.ts';
import { freePort } from '../helpers/ports.ts';

// docs/ai.md, "With a model": the owner asks an OpenAI-compatible model (a scripted server of
// the tests' own) and replies with its answer, or hands off through bad answers, errors,
// slowness, a model that is down, a person taking over and a worker restart.

const app = useEngineApp({ httpAllow: ['127.0.0.1'] });
const model: ModelServer = useFixture(() => startModelServer(), (s) => s.close());
const KEY = 'sk-scripted-1234567890';

async function modelWorkspace(settings: Record<string, unknown> = {}, baseUrl = model.baseUrl) {
  const { ws, api } = await engineWorkspace(app, [{ userId: 'lead' }]);
  const password = await addArticle(api, PASSWORD_ARTICLE);
  const printer = await addArticle(api, PRINTER_ARTICLE);
  await setOwner(api, { enabled: true, handoffTo: 'lead', instructions: 'Sign every reply as Ada.', model: { baseUrl, model: 'scripted-7b', apiKey: KEY }, ...settings });
  return { ws, api, articles: { password, printer } };
}

describe('the AI owner with a model', () => {
  it('replies with the model’s answer and its citations, having sent it the instructions, the articles and the conversation', async () => {
    const { api, articles } = await modelWorkspace();
    model.requests.length = 0;
    model.script([reply('Open Settings → Security and click "Reset password". — Ada', [articles.password])]);
    const ticketId = await ticketForAi(api, 'I forgot my password, how do I reset it?');
    const [turn] = await turnsAfter(api, ticketId, 1);
    expect(turn).toMatchObject({ action: 'reply', citations: [articles.password], model: 'scripted-7b' });
    const sent = (await readMessages(api, ticketId)).find((m) => m.id === turn.messageId);
    expect(sent.body).toBe('Open Settings → Security and click "Reset password". — Ada');
    expect((await getTicket(api, ticketId)).status).toBe('pending');

    const [request] = model.requests;
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.body.model).toBe('scripted-7b');
    expect(request.body.response_format.type).toBe('json_schema');
    const system = request.body.messages[0].content as string;
    expect(system).toContain('Sign every reply as Ada.');
    expect(system).toContain(`<article id="${articles.password}">`);
    expect(request.body.messages.at(-1)).toEqual({ role: 'user', content: 'I forgot my password, how do I reset it?' });
  });

  it('hands off when the model does, with its reason', async () => {
    const { api } = await modelWorkspace();
    model.script([handOff('The customer wants a refund, which needs a person.')]);
    const ticketId = await ticketForAi(api, 'My printer broke, I want my money back.');
    const [turn] = await turnsAfter(api, ticketId, 1);
    expect(turn).toMatchObject({ action: 'handoff', reason: 'The model handed off: The customer wants a refund, which needs a person.', model: 'scripted-7b' });
    expect((await getTicket(api, ticketId)).assignedTo).toBe('lead');
  });

  it('asks once more after an unusable answer, and hands off when the second is unusable too', async () => {
    const { api, articles } = await modelWorkspace();
    model.requests.length = 0;
    model.script([{ answer: 'Sure! Just open Settings.' }, reply('Open Settings.', [articles.password])]);
    const fixed = await ticketForAi(api, 'How do I reset my password?');
    expect((await turnsAfter(api, fixed, 1))[0]).toMatchObject({ action: 'reply', citations: [articles.password] });
    expect(model.requests[1].body.messages.at(-1).content).toContain('the answer was not JSON');

    model.script([{ answer: 'Sure!' }, reply('See article 42.', ['kb-42'])]);
    const broken = await ticketForAi(api, 'How do I reset my password?');
    const [turn] = await turnsAfter(api, broken, 1);
    expect(turn).toMatchObject({ action: 'handoff', reason: 'The model’s answer was not usable twice: it cited articles it was not given (kb-42)' });
    expect((await readMessages(api, broken)).filter((m) => m.direction === 'outbound')).toEqual([]);
  });

  it('rides out server errors and dropped connections within its budget', async () => {
    const { api, articles } = await modelWorkspace();
    model.script([{ status: 500 }, { drop: true }, { status: 429 }, reply('Restart the printer.', [articles.printer])]);
    const ticketId = await ticketForAi(api, 'The printer does not print.');
    const [turn] = await turnsAfter(api, ticketId, 1, 25_000);
    expect(turn).toMatchObject({ action: 'reply', citations: [articles.printer] });
  });

  it('falls back to a tool call on a server without structured output', async () => {
    const { api, articles } = await modelWorkspace();
    model.script([{ noResponseFormat: true }, { noResponseFormat: true, toolCall: { action: 'reply', body: 'Check the cable.', citations: [articles.printer], reason: '' } }]);
    const ticketId = await ticketForAi(api, 'The printer does not print.');
    expect((await turnsAfter(api, ticketId, 1))[0]).toMatchObject({ action: 'reply', citations: [articles.printer] });
  });

  it('hands off at once when the model refuses the request (a wrong key), never repeating the key', async () => {
    const { api } = await modelWorkspace();
    model.script([{ status: 401, message: `Incorrect API key provided: ${KEY}.` }]);
    const ticketId = await ticketForAi(api, 'The printer does not print.');
    const [turn] = await turnsAfter(api, ticketId, 1, 10_000);
    expect(turn).toMatchObject({ action: 'handoff', reason: expect.stringMatching(/^The model refused the request: the model server answered 401/) });
    expect(turn.reason).toContain('Incorrect API key provided: [redacted]');
    expect(turn.reason).not.toContain(KEY);
  });

  it('hands a ticket to a person within about 30 seconds when the model is down or too slow', { timeout: 90_000 }, async () => {
    const down = await modelWorkspace({}, `http://127.0.0.1:${await freePort()}/v1`);
    const slow = await modelWorkspace();
    model.script([], { delayMs: 60_000, answer: 'too late' });
    const started = Date.now();
    const [downTicket, slowTicket] = [await ticketForAi(down.api, 'The printer does not print.'), await ticketForAi(slow.api, 'The printer does not print.')];
    const [[downTurn], [slowTurn]] = await Promise.all([turnsAfter(down.api, downTicket, 1, 60_000), turnsAfter(slow.api, slowTicket, 1, 60_000)]);
    const took = Date.now() - started;
    expect(downTurn).toMatchObject({ action: 'handoff', reason: expect.stringMatching(/^The model could not be reached within 30 seconds/) });
    expect(slowTurn).toMatchObject({ action: 'handoff', reason: expect.stringMatching(/^The model could not be reached within 30 seconds/) });
    expect(took).toBeGreaterThan(25_000);
    expect(took).toBeLessThan(45_000);
    expect((await getTicket(slow.api, slowTicket)).assignedTo).toBe('lead');
  });

  it('stops when a person takes the ticket over while the model thinks', async () => {
    const { api } = await modelWorkspace();
    model.script([{ delayMs: 3_000, ...handOff('never used') }]);
    const ticketId = await ticketForAi(api, 'The printer does not print.');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await api.patch(`/api/v1/tickets/${ticketId}`, { assignedTo: 'lead' })).status).toBe(200);
    const result = await app.engine.client.workflow.getHandle(aiOwnerWorkflowId(ticketId)).result();
    expect(result).toMatch(/^stopped: assigned to lead/);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await turnsOf(api, ticketId)).toEqual([]);
    expect((await readMessages(api, ticketId)).filter((m) => m.direction === 'outbound')).toEqual([]);
  });

  it('answers through a worker restart in the middle of the model call', { timeout: 60_000 }, async () => {
    const { api, articles } = await modelWorkspace();
    model.requests.length = 0;
    model.script([{ delayMs: 8_000, ...reply('first attempt, cut off', [articles.printer]) }], reply('Restart the printer.', [articles.printer]));
    const ticketId = await ticketForAi(api, 'The printer does not print.');
    await waitFor(() => model.requests.length >= 1);
    await app.worker!.stop();
    await app.startWorker();
    const [turn] = await turnsAfter(api, ticketId, 1, 40_000);
    expect(turn).toMatchObject({ action: 'reply', citations: [articles.printer] });
    const replies = (await readMessages(api, ticketId)).filter((m) => m.direction === 'outbound');
    expect(replies).toHaveLength(1);
    expect(replies[0].body).toBe((await readMessages(api, ticketId)).find((m) => m.id === turn.messageId).body);
  });
});

async function waitFor(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
