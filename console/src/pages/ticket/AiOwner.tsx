// The AI owner on a ticket's page: what it did (its turns, oldest first: replied, handed off or
// drafted, why, the articles it cited and which model wrote it), a waiting draft the agent can
// send, and "What would the AI owner do?", which asks the dry run and sends nothing. Follows
// the live feed through useAiOwner.ts.
import type { AiDryRun, AiTurn } from '../../api.ts';
import { actionWords, draftWords, dryRunHeadline, modelWords, sendable, showsTurns, type AiOwnerState } from '../../model/ai-owner.ts';
import { href } from '../../router.ts';
import { Time } from '../../ui/common.tsx';
import { useAiOwner } from './useAiOwner.ts';

export function AiOwner({ ticketId, assignedTo, me }: { ticketId: string; assignedTo: string | null; me: string | null }) {
  const { state, dryRun, closeDryRun, sendDraft } = useAiOwner(ticketId);
  return (
    <section className="ai-owner" aria-labelledby="ai-owner-title" data-testid="ai-owner">
      <h2 id="ai-owner-title">AI owner</h2>
      {state.turnsError !== null && (
        <p className="error-text small" role="alert">
          Its turns could not be read: {state.turnsError instanceof Error ? state.turnsError.message : String(state.turnsError)}
        </p>
      )}
      {state.turns === null && state.turnsError === null && <p className="muted">Loading…</p>}
      {showsTurns(state.turns, assignedTo) ? (
        state.turns && state.turns.length > 0 ? (
          <ol className="messages ai-turns" aria-label="The AI owner’s turns, oldest first" data-testid="ai-turns">
            {state.turns.map((t) => (
              <Turn key={t.id} turn={t} titles={state.titles} me={me} sending={Boolean(state.sending[t.id])} refusal={state.refusals[t.id]} onSend={() => void sendDraft(t.id, me!)} />
            ))}
          </ol>
        ) : (
          state.turns && <p className="muted" data-testid="no-ai-turns">The AI owner holds this ticket and has not answered it yet.</p>
        )
      ) : (
        state.turns && <p className="muted small" data-testid="no-ai-turns">The AI owner has not handled this ticket.</p>
      )}
      <DryRun state={state} onRun={() => void dryRun()} onClose={closeDryRun} />
    </section>
  );
}

function Turn({ turn, titles, me, sending, refusal, onSend }: { turn: AiTurn; titles: AiOwnerState['titles']; me: string | null; sending: boolean; refusal: string | undefined; onSend: () => void }) {
  const send = sendable(turn, me, sending);
  return (
    <li className="message ai-turn" data-turn-id={turn.id} data-action={turn.action} data-draft-state={turn.draft?.state}>
      <div className="muted small">
        <Time at={turn.at} /> · <strong data-testid="turn-action">{actionWords(turn.action)}</strong> · <span data-testid="turn-model">{modelWords(turn.model)}</span>
      </div>
      {turn.reason && <p className="message-body" data-testid="turn-reason">{turn.reason}</p>}
      <Citations ids={turn.citations} titles={titles} />
      {turn.draft && (
        <>
          <blockquote className="message-body user-text" aria-label="The draft" data-testid="draft-body">{turn.draft.body}</blockquote>
          <p className="small" data-testid="draft-state">
            {draftWords(turn.draft)}
            {turn.draft.sentAt && <> (<Time at={turn.draft.sentAt} />)</>}
          </p>
          {turn.draft.state === 'waiting' && (
            <div className="toolbar">
              <button type="button" className="primary" disabled={!send.can} onClick={onSend} data-action="send-draft" aria-describedby={send.why ? `why-${turn.id}` : undefined}>
                Send
              </button>
              {send.why && <span className="muted small" id={`why-${turn.id}`}>{send.why}</span>}
            </div>
          )}
          {refusal && <p className="error-text small" role="alert">Not sent: {refusal}</p>}
        </>
      )}
    </li>
  );
}

function Citations({ ids, titles }: { ids: string[]; titles: AiOwnerState['titles'] }) {
  if (ids.length === 0) return null;
  return (
    <p className="small" data-testid="citations">
      Cited:{' '}
      {ids.map((id, i) => (
        <span key={id}>
          {i > 0 && ', '}
          {titles[id] === null ? (
            <span className="muted">a removed article</span>
          ) : (
            <a href={href.article(id)} className="user-text">{titles[id] ?? 'an article'}</a>
          )}
        </span>
      ))}
    </p>
  );
}

function DryRun({ state, onRun, onClose }: { state: AiOwnerState; onRun: () => void; onClose: () => void }) {
  const d = state.dryRun;
  return (
    <div className="ai-dry-run">
      <div className="toolbar">
        <button type="button" onClick={onRun} disabled={d.state === 'running'} data-action="ai-dry-run">
          What would the AI owner do?
        </button>
        {d.state === 'answered' && (
          <button type="button" className="link" onClick={onClose}>
            Hide the answer
          </button>
        )}
      </div>
      <div aria-live="polite" data-testid="ai-dry-run">
        {d.state === 'running' && <p className="muted">Asking… (nothing is sent)</p>}
        {d.state === 'failed' && <p className="error-text" role="alert">The dry run failed: {d.error instanceof Error ? d.error.message : String(d.error)}</p>}
        {d.state === 'answered' && <DryRunAnswer answer={d.answer} titles={state.titles} />}
      </div>
    </div>
  );
}

function DryRunAnswer({ answer, titles }: { answer: AiDryRun; titles: AiOwnerState['titles'] }) {
  return (
    <div className="message ai-dry-run-answer" data-acts={String(answer.acts)} data-action={answer.action ?? ''}>
      <p data-testid="dry-run-headline"><strong>{dryRunHeadline(answer)}</strong></p>
      <p className="muted small">Nothing was sent. Written by: {modelWords(answer.model)}.</p>
      {answer.body && <blockquote className="message-body user-text" aria-label="What it would write" data-testid="dry-run-body">{answer.body}</blockquote>}
      {answer.reason && <p className="message-body" data-testid="dry-run-reason">{answer.reason}</p>}
      <Citations ids={answer.citations} titles={titles} />
      {answer.articles.length > 0 && (
        <details>
          <summary className="small">Articles found ({answer.articles.length})</summary>
          <ol className="small">
            {answer.articles.map((a) => (
              <li key={a.id}>
                <a href={href.article(a.id)} className="user-text">{a.title}</a> <span className="muted">score {a.score.toFixed(2)}</span>
              </li>
            ))}
          </ol>
        </details>
      )}
    </div>
  );
}
