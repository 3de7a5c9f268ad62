import { useRef, useState } from 'react';
import type { Execution } from '../../api.ts';
import { runCount } from '../../model/run-words.ts';
import { timeline, type ComposerMode, type TimelineEntry } from '../../model/ticket-view.ts';
import { href, navigate } from '../../router.ts';
import { ErrorBanner, Loading, StatusBadge, Time } from '../../ui/common.tsx';
import { useMe } from '../../ui/me.tsx';
import { useShortcuts } from '../../ui/shortcuts.ts';
import { SlaClocks } from '../../ui/SlaClocks.tsx';
import { ExecutionTable } from '../RunsPage.tsx';
import { AiOwner } from './AiOwner.tsx';
import { Composer } from './Composer.tsx';
import { TicketControls } from './TicketControls.tsx';
import { useTicket } from './useTicket.ts';

/**
 * A ticket, worked on without leaving the page: its conversation with the notes in line, the
 * composer (reply or note), its status, priority, assignee and tags, the automation runs on it
 * and what the AI owner did and would do, all following the live feed. Keys: r replies, n notes,
 * / searches the inbox.
 */
export function TicketPage({ ticketId }: { ticketId: string }) {
  const model = useTicket(ticketId);
  const { me, members } = useMe();
  const [mode, setMode] = useState<ComposerMode>('reply');
  const text = useRef<HTMLTextAreaElement>(null);
  // r and n open the composer in that mode; / goes to the inbox's search box.
  useShortcuts(['reply', 'note', 'search'], (command) => {
    if (command === 'search') return navigate(href.search());
    setMode(command);
    text.current?.focus();
  });

  const { ticket } = model.state;
  if (model.loadError && !ticket) return <ErrorBanner error={model.loadError} />;
  if (!ticket) return <Loading />;
  return (
    <section className="page ticket">
      <div className="page-head">
        <h1 className="user-text">{ticket.subject}</h1>
        <StatusBadge status={ticket.status} />
      </div>
      <p className="muted">
        <span className="user-text">{ticket.customerName ?? ''}</span> &lt;<span className="user-text">{ticket.customerEmail}</span>&gt; · via {ticket.source} · opened <Time at={ticket.createdAt} /> · <a href={href.inbox()}>back to the inbox</a>
      </p>
      <TicketControls ticket={ticket} members={members} me={me} onUpdate={model.update} onAddTag={model.addTag} onRemoveTag={model.removeTag} />
      <ErrorBanner error={model.error} onClose={model.dismissError} />
      <div className="two-columns">
        <div>
          <h2>Conversation</h2>
          <p className="muted small">
            {model.state.messageTotal} message{model.state.messageTotal === 1 ? '' : 's'}, {model.state.notes.length} note{model.state.notes.length === 1 ? '' : 's'}
          </p>
          {model.notesError !== null && <p className="banner warn">Notes could not be read: {model.notesError instanceof Error ? model.notesError.message : String(model.notesError)}</p>}
          {model.state.truncated && (
            <button type="button" className="link" onClick={() => void model.olderMessages()}>
              Show older messages
            </button>
          )}
          <Conversation entries={timeline(model.state)} />
          <Composer mode={mode} onMode={setMode} me={me} textRef={text} onSend={(m, body) => model.send(m, me!, body)} />
        </div>
        <div>
          <SlaClocks ticketId={ticket.id} />
          <h2>Automation runs</h2>
          <Runs runs={model.runs} more={model.moreRuns} names={model.workflowNames} onOlder={() => void model.olderRuns()} />
          <AiOwner ticketId={ticket.id} assignedTo={ticket.assignedTo} me={me} />
        </div>
      </div>
    </section>
  );
}

function Conversation({ entries }: { entries: TimelineEntry[] }) {
  return (
    <ol className="messages" data-testid="messages" aria-label="Conversation">
      {entries.map((e) =>
        e.kind === 'message' ? (
          <li key={`m-${e.message.id}`} className={`message ${e.message.direction}`} data-message-id={e.message.id}>
            <div className="muted small">
              <span className="user-text">{e.message.senderName ?? e.message.senderEmail}</span> · {e.message.direction === 'inbound' ? 'from the customer' : 'to the customer'} · <Time at={e.message.createdAt} />
            </div>
            <div className="message-body">{e.message.body}</div>
          </li>
        ) : (
          <li key={`n-${e.note.id}`} className="message note" data-note-id={e.note.id}>
            <div className="muted small">
              Note by <span className="user-text">{e.note.authorId}</span> · <Time at={e.note.createdAt} />
            </div>
            <div className="message-body">{e.note.body}</div>
          </li>
        ),
      )}
    </ol>
  );
}

function Runs({ runs, more, names, onOlder }: { runs: Execution[] | null; more: boolean; names: ReadonlyMap<string, string>; onOlder: () => void }) {
  if (!runs) return <Loading />;
  if (runs.length === 0) return <p className="muted">No automation has run on this ticket.</p>;
  return (
    <>
      <p className="muted small" data-testid="run-count">{runCount(runs, more)}.</p>
      <ExecutionTable executions={runs} workflowNames={names} />
      {more && (
        <button type="button" className="link" onClick={onOlder}>
          Older runs
        </button>
      )}
    </>
  );
}
