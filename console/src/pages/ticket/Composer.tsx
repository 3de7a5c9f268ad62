import { useEffect, useRef, useState, type FormEvent, type RefObject } from 'react';
import { composerProblem, type ComposerMode } from '../../model/ticket-view.ts';
import { sendsComposer } from '../../model/shortcuts.ts';

type Props = {
  mode: ComposerMode;
  onMode: (mode: ComposerMode) => void;
  me: string | null;
  /** Sends the text; resolves true once it went through (then the text is cleared). */
  onSend: (mode: ComposerMode, body: string) => Promise<boolean>;
  textRef: RefObject<HTMLTextAreaElement | null>;
};

/**
 * One box for both: a reply goes to the customer, a note stays with the agents. The mode shows
 * in the colours, the label and the button. Ctrl+Enter (⌘+Enter) sends.
 */
export function Composer({ mode, onMode, me, onSend, textRef }: Props) {
  const [body, setBody] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => setProblem(null), [mode, me]);

  const send = async (e?: FormEvent) => {
    e?.preventDefault();
    if (busy) return;
    const why = composerProblem(body, me, mode);
    setProblem(why);
    if (why || !me) return;
    setBusy(true);
    try {
      if (await onSend(mode, body)) setBody('');
    } finally {
      setBusy(false);
    }
  };

  const label = mode === 'reply' ? 'Reply to the customer' : 'Internal note (the customer does not see it)';
  return (
    <form className={`composer composer-${mode}`} onSubmit={(e) => void send(e)} data-testid="composer" data-mode={mode}>
      <div className="segmented" role="radiogroup" aria-label="Write a">
        <label className="inline">
          <input type="radio" name="composerMode" value="reply" checked={mode === 'reply'} onChange={() => onMode('reply')} /> Reply <kbd>r</kbd>
        </label>
        <label className="inline">
          <input type="radio" name="composerMode" value="note" checked={mode === 'note'} onChange={() => onMode('note')} /> Note <kbd>n</kbd>
        </label>
      </div>
      <label>
        <span className="small muted">{label}</span>
        <textarea
          ref={textRef}
          name="composerBody"
          rows={5}
          value={body}
          onChange={(e) => setBody(e.target.value)}
          onKeyDown={(e) => {
            if (!sendsComposer(e)) return;
            e.preventDefault();
            void send();
          }}
        />
      </label>
      <div className="buttons">
        <span className="muted small" role="status">{problem}</span>
        <span className="muted small">Ctrl+Enter sends</span>
        <button type="submit" className="primary" data-action="send" disabled={busy}>
          {busy ? 'Sending…' : mode === 'reply' ? 'Send reply' : 'Add note'}
        </button>
      </div>
    </form>
  );
}
