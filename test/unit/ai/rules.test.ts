import { describe, expect, it } from 'vitest';
import { judgeAnswer } from '../../../src/ai/answer.ts';
import { asksForPerson } from '../../../src/ai/person.ts';
import { buildPrompt } from '../../../src/ai/prompt.ts';
import { answerFromArticles, handoffChange, nextStep, replyAction, type Situation } from '../../../src/ai/rules.ts';
import { textSearchConfig } from '../../../src/knowledge/languages.ts';

const situation = (over: Partial<Situation> = {}): Situation => ({
  settings: { enabled: true, maxRepliesPerTicket: 3 },
  ticket: { assignedTo: 'ai', status: 'open', language: 'en', subject: 'Password' },
  waiting: { id: 'm2', body: 'How do I reset my password?', first: false },
  handled: false,
  repliesSent: 0,
  ...over,
});

describe('nextStep: when the owner acts', () => {
  it('answers the waiting customer message of a ticket it owns', () => {
    expect(nextStep(situation())).toEqual({ step: 'answer', messageId: 'm2', query: 'How do I reset my password?' });
  });

  it('searches the first message with the ticket’s subject', () => {
    expect(nextStep(situation({ waiting: { id: 'm1', body: 'It broke.', first: true } }))).toMatchObject({ step: 'answer', query: 'Password\nIt broke.' });
  });

  it('does nothing while off, on a ticket a person owns, solved or closed, answered, or handled already', () => {
    expect(nextStep(situation({ settings: { enabled: false, maxRepliesPerTicket: 3 } }))).toEqual({ step: 'stop', why: 'off' });
    expect(nextStep(situation({ ticket: { ...situation().ticket, assignedTo: 'agent-1' } }))).toEqual({ step: 'stop', why: 'not_owned' });
    expect(nextStep(situation({ ticket: { ...situation().ticket, assignedTo: null } }))).toEqual({ step: 'stop', why: 'not_owned' });
    for (const status of ['solved', 'closed'] as const) expect(nextStep(situation({ ticket: { ...situation().ticket, status } }))).toEqual({ step: 'stop', why: 'resolved' });
    expect(nextStep(situation({ waiting: null }))).toEqual({ step: 'stop', why: 'nothing_waiting' });
    expect(nextStep(situation({ handled: true }))).toEqual({ step: 'stop', why: 'handled' });
  });

  it('acts on pending and escalated tickets it still owns', () => {
    for (const status of ['pending', 'escalated'] as const) expect(nextStep(situation({ ticket: { ...situation().ticket, status } })).step).toBe('answer');
  });

  it('hands off when the customer asks for a person, before anything else', () => {
    expect(nextStep(situation({ waiting: { id: 'm3', body: 'Let me talk to a HUMAN please', first: false }, repliesSent: 0 }))).toEqual({
      step: 'handoff',
      messageId: 'm3',
      code: 'asked_for_person',
      reason: 'The customer asked for a person.',
    });
  });

  it('hands off after maxRepliesPerTicket replies (0: at once)', () => {
    expect(nextStep(situation({ repliesSent: 2 })).step).toBe('answer');
    expect(nextStep(situation({ repliesSent: 3 }))).toMatchObject({ step: 'handoff', code: 'max_replies', reason: expect.stringContaining('3 times') });
    expect(nextStep(situation({ settings: { enabled: true, maxRepliesPerTicket: 0 } }))).toMatchObject({ step: 'handoff', code: 'max_replies' });
  });
});

describe('asksForPerson', () => {
  it('hears a human, an agent or a person in English whatever the ticket’s language', () => {
    for (const text of ['I want a human', 'Agent!', 'can a real person call me?', 'put me through to a representative', 'Connect me to an operator.']) {
      expect(asksForPerson(text, 'de'), text).toBe(true);
    }
    expect(asksForPerson('How do I reset my password?', 'en')).toBe(false);
    expect(asksForPerson('The agentur sent a personal letter', 'en')).toBe(false);
  });

  it('hears it in the ticket’s language, two- or three-letter', () => {
    expect(asksForPerson('Ich möchte mit einem Menschen sprechen', 'de')).toBe(true);
    expect(asksForPerson('Bitte einen Mitarbeiter', 'deu')).toBe(true);
    expect(asksForPerson('Je veux parler à un conseiller', 'fr')).toBe(true);
    expect(asksForPerson('Quiero hablar con una persona', 'es')).toBe(true);
    expect(asksForPerson('Ich möchte mit einem Menschen sprechen', 'fr')).toBe(false);
    expect(asksForPerson('Mein Drucker brennt', 'de')).toBe(false);
  });
});

describe('answerFromArticles: the owner without a model', () => {
  const article = (id: string, score: number) => ({ id, title: `Article ${id}`, body: `Body ${id}`, score });

  it('replies with the best article when its score reaches minScore', () => {
    expect(answerFromArticles([article('a', 0.6), article('b', 0.4)], 0.3)).toEqual({ action: 'reply', body: 'Body a', citations: ['a'] });
    expect(answerFromArticles([article('a', 0.3)], 0.3).action).toBe('reply');
  });

  it('hands off, naming the best score, when none reaches it, and when nothing matched', () => {
    expect(answerFromArticles([article('a', 0.12345)], 0.3)).toEqual({
      action: 'handoff',
      code: 'no_article',
      reason: 'No article answers this well enough: the best, "Article a", scored 0.1235, below minScore 0.3.',
    });
    expect(answerFromArticles([], 0.3)).toEqual({ action: 'handoff', code: 'no_article', reason: 'No article matches the customer’s message.' });
  });
});

describe('judgeAnswer: what makes a model’s answer usable', () => {
  const given = ['0b6d1f2e-3c4d-4e5f-8a9b-0c1d2e3f4a5b'];

  it('takes a reply citing given articles, and a hand-off', () => {
    expect(judgeAnswer(JSON.stringify({ action: 'reply', body: ' Open Settings. ', citations: [given[0].toUpperCase(), given[0]], reason: '' }), given)).toEqual({
      ok: true,
      answer: { action: 'reply', body: 'Open Settings.', citations: [given[0]], reason: '' },
    });
    expect(judgeAnswer('```json\n{"action":"handoff","body":"","citations":[],"reason":"Angry customer"}\n```', given)).toMatchObject({ ok: true, answer: { action: 'handoff', reason: 'Angry customer' } });
  });

  it('refuses empty, non-JSON, misshapen, empty replies and unknown citations, saying why', () => {
    expect(judgeAnswer('', given)).toEqual({ ok: false, problem: 'the answer was empty' });
    expect(judgeAnswer(null, given)).toEqual({ ok: false, problem: 'the answer was empty' });
    expect(judgeAnswer('Sure! Open Settings.', given)).toEqual({ ok: false, problem: 'the answer was not JSON' });
    expect(judgeAnswer('{"action":"shrug","body":"","citations":[],"reason":""}', given)).toMatchObject({ ok: false, problem: expect.stringContaining('action') });
    expect(judgeAnswer('{"action":"reply","body":"  ","citations":[],"reason":""}', given)).toEqual({ ok: false, problem: 'the reply was empty' });
    expect(judgeAnswer('{"action":"reply","body":"Hi","citations":["kb-42"],"reason":""}', given)).toEqual({ ok: false, problem: 'it cited articles it was not given (kb-42)' });
  });
});

describe('hand-offs and sending', () => {
  it('hands a ticket to handoffTo, or leaves it unassigned and escalated', () => {
    expect(handoffChange('lead')).toEqual({ assignedTo: 'lead' });
    expect(handoffChange(null)).toEqual({ assignedTo: null, status: 'escalated' });
  });

  it('sends replies at once with autoSend, else keeps drafts', () => {
    expect(replyAction(true)).toBe('reply');
    expect(replyAction(false)).toBe('draft');
  });
});

describe('buildPrompt', () => {
  it('sends the rules, the instructions, the articles with their ids, and the conversation in order', () => {
    const messages = buildPrompt({
      instructions: 'Sign as Ada.',
      articles: [{ id: 'a1', title: 'Reset', body: 'Open Settings.', score: 0.5 }],
      conversation: [
        { direction: 'inbound', body: 'Hi' },
        { direction: 'outbound', body: 'Hello!' },
        { direction: 'inbound', body: 'Password?' },
      ],
      subject: 'Login',
      language: 'en',
      retryBecause: 'the answer was not JSON',
    });
    expect(messages[0].role).toBe('system');
    expect(messages[0].content).toContain('Sign as Ada.');
    expect(messages[0].content).toContain('<article id="a1">\n# Reset\nOpen Settings.');
    expect(messages.slice(1, 4)).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: 'Password?' },
    ]);
    expect(messages[4]).toEqual({ role: 'system', content: expect.stringContaining('the answer was not JSON') });
  });
});

describe('textSearchConfig', () => {
  it('maps two- and three-letter languages to PostgreSQL configurations, simple otherwise', () => {
    expect(textSearchConfig('en')).toBe('english');
    expect(textSearchConfig('deu')).toBe('german');
    expect(textSearchConfig('ger')).toBe('german');
    expect(textSearchConfig('xx')).toBe('simple');
    expect(textSearchConfig(null)).toBe('simple');
  });
});
