import { useEffect, useState, type FormEvent } from 'react';
import { api, ApiError, type AiSettings } from '../api.ts';
import { aiSettingsForm, aiSettingsPatch, keyHint, type AiSettingsForm } from '../model/ai-settings-form.ts';
import { href, useLeaveGuard } from '../router.ts';
import { ErrorBanner, Loading, NoticeBanner } from '../ui/common.tsx';
import { Field } from '../ui/Field.tsx';

/**
 * The AI owner's settings: on or off, who gets the tickets it hands off, and the model it asks
 * (none: it answers with the best article). The model's key is write-only: typed to set or
 * replace it, never shown.
 */
export function AiSettingsPage() {
  const [saved, setSaved] = useState<AiSettings | null>(null);
  const [form, setForm] = useState<AiSettingsForm | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api.getAiSettings().then(
      (s) => {
        setSaved(s);
        setForm(aiSettingsForm(s));
      },
      (err: unknown) => setError(err),
    );
  }, []);
  const dirty = saved !== null && form !== null && JSON.stringify(aiSettingsForm(saved)) !== JSON.stringify(form);
  useLeaveGuard(dirty, 'The AI owner’s settings have unsaved changes. Leave without saving them?');
  if (!form) return error ? <ErrorBanner error={error} /> : <Loading />;

  const messages = (path: string) => (error instanceof ApiError ? error.details.filter((d) => d.path === path).map((d) => d.message) : []);
  const set = (change: Partial<AiSettingsForm>) => setForm({ ...form, ...change });
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      const result = await api.updateAiSettings(aiSettingsPatch(form));
      setSaved(result);
      // The key typed is gone from the page once the server has it.
      setForm(aiSettingsForm(result));
      setNotice(result.enabled ? 'Saved. The AI owner answers tickets assigned to ai.' : 'Saved. The AI owner is off.');
    } catch (err) {
      setError(err instanceof ApiError ? new ApiError(err.status, err.code, `Not saved: ${err.message}`, err.details, null) : err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="page ai-page">
      <div className="page-head">
        <h1>AI owner</h1>
        <div className="toolbar">{dirty && <span className="unsaved" data-testid="unsaved">unsaved changes</span>}</div>
      </div>
      <p className="muted">
        Tickets assigned to <code>ai</code> are answered from the <a href={href.knowledge()}>knowledge</a>, or handed to a person with the reason. It writes to customers, so it
        is off until you turn it on.
      </p>
      <ErrorBanner error={error} onClose={() => setError(null)} />
      <NoticeBanner notice={notice} onClose={() => setNotice(null)} />
      <form className="ai-form stack" onSubmit={save} data-testid="ai-form" autoComplete="off">
        <label className="check">
          <input type="checkbox" name="enabled" checked={form.enabled} onChange={(e) => set({ enabled: e.target.checked })} /> On: answer tickets assigned to ai
        </label>
        <Field label="Hand off to" messages={messages('handoffTo')} hint={<p className="muted small">A member’s user id; blank: handed-off tickets are left unassigned and escalated.</p>}>
          {(id) => <input id={id} name="handoffTo" value={form.handoffTo} maxLength={200} onChange={(e) => set({ handoffTo: e.target.value })} />}
        </Field>
        <Field label="Sender name" messages={messages('senderName')}>
          {(id) => <input id={id} name="senderName" value={form.senderName} maxLength={200} required onChange={(e) => set({ senderName: e.target.value })} />}
        </Field>
        <Field label="Replies per ticket" messages={messages('maxRepliesPerTicket')} hint={<p className="muted small">After this many replies the ticket goes to a person.</p>}>
          {(id) => <input id={id} name="maxRepliesPerTicket" type="number" min={0} max={50} value={form.maxRepliesPerTicket} onChange={(e) => set({ maxRepliesPerTicket: e.target.value })} />}
        </Field>
        <label className="check">
          <input type="checkbox" name="autoSend" checked={form.autoSend} onChange={(e) => set({ autoSend: e.target.checked })} /> Send replies at once (off: each waits as a draft for a person)
        </label>
        <fieldset>
          <legend>Model</legend>
          <label className="check">
            <input type="radio" name="useModel" checked={!form.useModel} onChange={() => set({ useModel: false })} /> None: reply with the best article
          </label>
          <label className="check">
            <input type="radio" name="useModel" checked={form.useModel} onChange={() => set({ useModel: true })} /> An OpenAI-compatible model (OpenAI, Ollama, vLLM, llama.cpp, LiteLLM)
          </label>
          {!form.useModel ? (
            <Field label="Minimum score" messages={messages('minScore')} hint={<p className="muted small">The best article answers only when its search score reaches this (0 to 1).</p>}>
              {(id) => <input id={id} name="minScore" type="number" step="0.01" min={0} max={1} value={form.minScore} onChange={(e) => set({ minScore: e.target.value })} />}
            </Field>
          ) : (
            <>
              <Field label="Base URL" messages={messages('model.baseUrl')} hint={<p className="muted small">Up to its /v1, e.g. https://api.openai.com/v1 or http://localhost:11434/v1.</p>}>
                {(id) => <input id={id} name="baseUrl" value={form.baseUrl} required onChange={(e) => set({ baseUrl: e.target.value })} />}
              </Field>
              <Field label="Model" messages={messages('model.model')}>
                {(id) => <input id={id} name="model" value={form.model} required placeholder="gpt-4o-mini" onChange={(e) => set({ model: e.target.value })} />}
              </Field>
              <Field label="API key" messages={messages('model.apiKey')} hint={<p className="muted small" data-testid="key-hint">{keyHint(saved, form)}</p>}>
                {(id) => (
                  <input id={id} name="modelApiKey" type="password" autoComplete="new-password" value={form.apiKey} placeholder={saved?.model?.apiKeySet ? '•••••• kept' : ''} onChange={(e) => set({ apiKey: e.target.value, dropKey: false })} />
                )}
              </Field>
              {saved?.model?.apiKeySet && (
                <label className="check">
                  <input type="checkbox" name="dropKey" checked={form.dropKey} onChange={(e) => set({ dropKey: e.target.checked, apiKey: '' })} /> Drop the kept key
                </label>
              )}
              <Field label="Instructions" messages={messages('instructions')} hint={<p className="muted small">What the model is told first: tone, what never to promise.</p>}>
                {(id) => <textarea id={id} name="instructions" rows={6} value={form.instructions} onChange={(e) => set({ instructions: e.target.value })} />}
              </Field>
            </>
          )}
        </fieldset>
        <div className="buttons">
          <button type="submit" className="primary" data-action="save-ai" disabled={busy || !dirty}>
            {busy ? 'Saving…' : 'Save'}
          </button>
        </div>
      </form>
    </section>
  );
}
