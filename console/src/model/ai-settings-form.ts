// The AI owner's settings as their form edits them, and the change the API takes. The model's
// key is write-only: the form never holds the kept one, only what the user types to replace it,
// or the wish to drop it. Pure: no I/O, no DOM.
import type { AiSettings, AiSettingsPatch } from '../api-types.ts';

export type AiSettingsForm = {
  enabled: boolean;
  useModel: boolean;
  baseUrl: string;
  model: string;
  /** A new key typed in ('' keeps the kept one). */
  apiKey: string;
  dropKey: boolean;
  instructions: string;
  handoffTo: string;
  minScore: string;
  maxRepliesPerTicket: string;
  autoSend: boolean;
  senderName: string;
};

export function aiSettingsForm(s: AiSettings): AiSettingsForm {
  return {
    enabled: s.enabled,
    useModel: s.model !== null,
    baseUrl: s.model?.baseUrl ?? '',
    model: s.model?.model ?? '',
    apiKey: '',
    dropKey: false,
    instructions: s.instructions,
    handoffTo: s.handoffTo ?? '',
    minScore: String(s.minScore),
    maxRepliesPerTicket: String(s.maxRepliesPerTicket),
    autoSend: s.autoSend,
    senderName: s.senderName,
  };
}

/**
 * The change to send: every field, `model` as a whole (the key only when one was typed, null when
 * it is to be dropped). Numbers that are not numbers are sent as typed, for the server to name.
 */
export function aiSettingsPatch(form: AiSettingsForm): AiSettingsPatch {
  const number = (text: string) => (text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : (text as unknown as number));
  const key = form.dropKey ? { apiKey: null } : form.apiKey !== '' ? { apiKey: form.apiKey } : {};
  return {
    enabled: form.enabled,
    model: form.useModel ? { baseUrl: form.baseUrl.trim(), model: form.model.trim(), ...key } : null,
    instructions: form.instructions,
    handoffTo: form.handoffTo.trim() === '' ? null : form.handoffTo.trim(),
    minScore: number(form.minScore),
    maxRepliesPerTicket: number(form.maxRepliesPerTicket),
    autoSend: form.autoSend,
    senderName: form.senderName,
  };
}

/** What the key field says about the kept key. */
export function keyHint(saved: AiSettings | null, form: AiSettingsForm): string {
  const kept = saved?.model?.apiKeySet === true;
  const sameServer = saved?.model?.baseUrl === form.baseUrl.trim();
  if (form.dropKey) return 'The kept key will be dropped.';
  if (form.apiKey !== '') return 'The key typed will replace the kept one.';
  if (kept && !sameServer) return 'A key is kept for the old address only: it is dropped when the address changes. Type the key for the new one.';
  if (kept) return 'A key is kept (it is never shown). Type a new one to replace it.';
  return 'No key is kept. Local servers (Ollama, llama.cpp) need none.';
}
