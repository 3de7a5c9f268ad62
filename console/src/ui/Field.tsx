import { useId, type ReactNode } from 'react';

/** A labelled input with the problems found in it shown beneath. */
export function Field({ label, messages, hint, children }: { label: string; messages: string[]; hint?: ReactNode; children: (id: string) => ReactNode }) {
  const id = useId();
  return (
    <div className={`field${messages.length ? ' invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children(id)}
      {hint}
      <FieldErrors messages={messages} />
    </div>
  );
}

/** The problems found in an input, beneath it. */
export function FieldErrors({ messages }: { messages: string[] }) {
  return (
    <>
      {messages.map((m, i) => (
        <p key={i} className="error-text field-error">{m}</p>
      ))}
    </>
  );
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
