import { describe, expect, it } from 'vitest';
import type { AiSettings } from '../../../console/src/api-types.ts';
import { aiSettingsForm, aiSettingsPatch, keyHint } from '../../../console/src/model/ai-settings-form.ts';
import { articleInput, isArticleDirty } from '../../../console/src/model/article-form.ts';

const saved: AiSettings = {
  enabled: true,
  model: { baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', apiKeySet: true },
  instructions: 'Be brief.',
  handoffTo: 'lead',
  minScore: 0.3,
  maxRepliesPerTicket: 3,
  autoSend: true,
  senderName: 'AI assistant',
};

describe('the AI settings form', () => {
  it('never holds the kept key, and sends one only when typed', () => {
    const form = aiSettingsForm(saved);
    expect(form.apiKey).toBe('');
    expect(aiSettingsPatch(form).model).toEqual({ baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' });
    expect(aiSettingsPatch({ ...form, apiKey: 'sk-new' }).model).toEqual({ baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', apiKey: 'sk-new' });
    expect(aiSettingsPatch({ ...form, dropKey: true }).model).toEqual({ baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', apiKey: null });
  });

  it('sends no model when none is chosen, a blank hand-off as null, numbers as numbers', () => {
    const patch = aiSettingsPatch({ ...aiSettingsForm(saved), useModel: false, handoffTo: ' ', minScore: '0.45', maxRepliesPerTicket: '2' });
    expect(patch).toMatchObject({ model: null, handoffTo: null, minScore: 0.45, maxRepliesPerTicket: 2 });
    // Not a number: sent as typed, for the server to name the field.
    expect(aiSettingsPatch({ ...aiSettingsForm(saved), minScore: 'lots' }).minScore).toBe('lots');
  });

  it('says what becomes of the kept key', () => {
    const form = aiSettingsForm(saved);
    expect(keyHint(saved, form)).toMatch(/A key is kept/);
    expect(keyHint(saved, { ...form, baseUrl: 'http://localhost:11434/v1' })).toMatch(/dropped when the address changes/);
    expect(keyHint(saved, { ...form, apiKey: 'x' })).toMatch(/replace/);
    expect(keyHint({ ...saved, model: null }, aiSettingsForm({ ...saved, model: null }))).toMatch(/No key is kept/);
  });
});

describe('the article form', () => {
  it('reads tags separated by commas, once each, and a blank language as none', () => {
    expect(articleInput({ title: 'T', body: 'B', language: ' ', tags: 'billing, , refunds,billing ' })).toEqual({ title: 'T', body: 'B', language: null, tags: ['billing', 'refunds'] });
    expect(articleInput({ title: 'T', body: 'B', language: 'EN', tags: '' }).language).toBe('en');
    expect(isArticleDirty({ title: 'T', body: 'B', language: '', tags: 'a,b' }, { title: 'T', body: 'B', language: '', tags: 'a, b' })).toBe(false);
  });
});
