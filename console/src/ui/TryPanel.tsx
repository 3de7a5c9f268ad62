import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { calendarReferences, CHANGEABLE_TICKET_FIELDS, type TriggerType, type WorkflowGraph } from '../../../src/graph/index.ts';
import { api, type Backtest, type DryRun, type DryRunInput, type Ticket, type Workflow } from '../api.ts';
import type { Canvas } from '../model/canvas.ts';
import { runOverlay, type RunOverlay, type Step } from '../model/overlay.ts';
import { formatInstant, wallTimeToInstant } from '../model/time.ts';
import { missingTicket, pickedTicket } from '../model/try.ts';
import { simulatedKind } from '../model/run-words.ts';
import { useCalendars } from './calendars.tsx';
import { TicketSubject, useTicketSubjects } from './tickets.tsx';
import { ErrorBanner, Json, StepStatus, Time, Until } from './common.tsx';

type Props = {
  workflow: Workflow;
  graph: WorkflowGraph;
  triggerType: TriggerType;
  dirty: boolean;
  canvas: Canvas;
  onOverlay: (overlay: RunOverlay | null) => void;
};

/**
 * Trying the workflow without running it: a dry run of the graph as drawn (saved or not) on a
 * ticket and the event's details, and a backtest of the saved version over the last days'
 * events. Whatever is shown lights the path on the canvas.
 */
export function TryPanel(props: Props) {
  const [mode, setMode] = useState<'dry' | 'backtest'>('dry');
  return (
    <div className="try stack">
      <div className="segmented">
        <label className="inline">
          <input type="radio" name="tryMode" checked={mode === 'dry'} onChange={() => setMode('dry')} /> Dry run
        </label>
        <label className="inline">
          <input type="radio" name="tryMode" checked={mode === 'backtest'} onChange={() => setMode('backtest')} /> Backtest
        </label>
      </div>
      {mode === 'dry' ? <DryRunForm {...props} /> : <BacktestForm {...props} />}
    </div>
  );
}

function DryRunForm({ graph, triggerType, canvas, onOverlay }: Props) {
  const [ticketId, setTicketId] = useState('');
  const [changes, setChanges] = useState<Array<{ field: string; from: string; to: string }>>([{ field: 'status', from: 'open', to: 'pending' }]);
  const [messageBody, setMessageBody] = useState('');
  const [tag, setTag] = useState('');
  const [data, setData] = useState('{}');
  const [assumeReply, setAssumeReply] = useState(false);
  const [approvals, setApprovals] = useState<'approve' | 'reject'>('approve');
  const [result, setResult] = useState<DryRun | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const calendars = useCalendars();
  // When the run would begin: empty is now; else a wall time in a zone, the first calendar the graph names by default.
  const [atLocal, setAtLocal] = useState('');
  const [atZone, setAtZone] = useState(() => calendars.byId(calendarReferences(graph)[0]?.calendarId)?.timeZone ?? browserZone());
  const zones = useMemo(() => [...new Set([browserZone(), 'UTC', ...(calendars.list ?? []).map((c) => c.timeZone), atZone])], [calendars.list, atZone]);

  const asksApproval = graph.nodes.some((n) => n.type === 'action' && n.data.actionType === 'request_approval');
  useEffect(() => {
    if (result) onOverlay(runOverlay(canvas, result.steps, true, true));
  }, [result, canvas, onOverlay]);
  useEffect(() => () => onOverlay(null), [onOverlay]);

  const [warning, setWarning] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setWarning(null);
    const missing = ticketId ? null : missingTicket(triggerType, graph, parsedData(data) ?? {});
    if (missing?.blocks) {
      setResult(null);
      onOverlay(null);
      setError(new Error(missing.message));
      return;
    }
    setWarning(missing?.message ?? null);
    setBusy(true);
    try {
      const input: DryRunInput = { assumeReply, ...(asksApproval ? { approvals } : {}) };
      if (atLocal) {
        const at = wallTimeToInstant(atLocal, atZone);
        if (!at) throw new Error(`${atLocal} is not a moment in ${atZone}.`);
        input.at = at;
      }
      if (ticketId) input.ticketId = ticketId;
      if (triggerType === 'ticket_updated') {
        input.changes = Object.fromEntries(changes.filter((c) => c.field).map((c) => [c.field, { from: literal(c.from), to: literal(c.to) }]));
      }
      if (triggerType === 'message_received' && messageBody) input.message = { body: messageBody, direction: 'inbound' };
      if (triggerType === 'tag_added' && tag) input.tag = tag;
      if (['manual', 'webhook', 'scheduled'].includes(triggerType)) {
        const parsed = parsedData(data);
        if (!parsed) throw new Error('data must be a JSON object, like {"reason": "demo"}.');
        input.data = parsed;
      }
      setResult(await api.dryRunGraph(triggerType, graph, input));
    } catch (err) {
      setResult(null);
      onOverlay(null);
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="stack" onSubmit={submit} data-testid="dry-run-form">
      <p className="muted small">Walks the graph as drawn, saved or not, as a run would: nothing is written or sent.</p>
      <fieldset className="at">
        <legend>When</legend>
        <div className="row">
          <input type="datetime-local" name="at" aria-label="At" value={atLocal} onChange={(e) => setAtLocal(e.target.value)} />
          <select name="atZone" aria-label="Time zone of the moment" value={atZone} onChange={(e) => setAtZone(e.target.value)}>
            {zones.map((z) => (
              <option key={z} value={z}>{z}</option>
            ))}
          </select>
        </div>
        <p className="muted small">
          {atLocal ? (
            <button type="button" className="link" onClick={() => setAtLocal('')}>now instead</button>
          ) : (
            'Empty: now. '
          )}{' '}
          Conditions on <code>now</code> read this moment and waits count from it; a ticket's own dates stay what they are.
        </p>
      </fieldset>
      <TicketPicker value={ticketId} onChange={setTicketId} />
      {triggerType === 'ticket_updated' && (
        <fieldset>
          <legend>What changed</legend>
          {changes.map((c, i) => (
            <div key={i} className="row">
              <select aria-label="Changed field" value={c.field} onChange={(e) => setChanges(changes.map((x, j) => (j === i ? { ...x, field: e.target.value } : x)))}>
                {CHANGEABLE_TICKET_FIELDS.map((f) => (
                  <option key={f} value={f}>{f}</option>
                ))}
              </select>
              <input aria-label="From" value={c.from} onChange={(e) => setChanges(changes.map((x, j) => (j === i ? { ...x, from: e.target.value } : x)))} />
              →
              <input aria-label="To" value={c.to} onChange={(e) => setChanges(changes.map((x, j) => (j === i ? { ...x, to: e.target.value } : x)))} />
            </div>
          ))}
          <button type="button" className="link" onClick={() => setChanges([...changes, { field: 'priority', from: 'medium', to: 'high' }])}>Add a change</button>
        </fieldset>
      )}
      {triggerType === 'message_received' && (
        <label>
          The customer's message
          <textarea name="messageBody" rows={3} value={messageBody} onChange={(e) => setMessageBody(e.target.value)} />
        </label>
      )}
      {triggerType === 'tag_added' && (
        <label>
          The tag added
          <input name="tag" value={tag} onChange={(e) => setTag(e.target.value)} />
        </label>
      )}
      {['manual', 'webhook', 'scheduled'].includes(triggerType) && (
        <label>
          data (JSON)
          <textarea name="data" className="code" rows={3} value={data} onChange={(e) => setData(e.target.value)} />
        </label>
      )}
      <label className="inline">
        <input type="checkbox" name="assumeReply" checked={assumeReply} onChange={(e) => setAssumeReply(e.target.checked)} /> the customer replies in time (wait_for_reply takes its true branch)
      </label>
      {asksApproval && (
        <label>
          Approvals are
          <select name="approvals" value={approvals} onChange={(e) => setApprovals(e.target.value as 'approve' | 'reject')}>
            <option value="approve">approved (request_approval takes its true branch)</option>
            <option value="reject">rejected (its false branch)</option>
          </select>
        </label>
      )}
      <button type="submit" className="primary" data-action="dry-run" disabled={busy}>{busy ? 'Running…' : 'Dry run'}</button>
      <ErrorBanner error={error} />
      {warning && <p className="banner warn" data-testid="dry-run-warning">{warning}</p>}
      {result && <DryRunResult result={result} timeZone={atZone} />}
    </form>
  );
}

const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** The `data` typed, when it is a JSON object (blank is an empty one). */
function parsedData(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text.trim() || '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** `"42"` → 42, `"true"` → true, `"null"` → null; anything else stays text. */
function literal(text: string): unknown {
  if (text === 'null') return null;
  if (text === 'true' || text === 'false') return text === 'true';
  if (text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
  return text;
}

function StepList({ steps, timeZone }: { steps: Step[]; timeZone?: string }) {
  return (
    <ol className="steps" data-testid="steps">
      {steps.map((s) => (
        <li key={s.nodeId} data-step={s.nodeId}>
          <code>{s.nodeId}</code> <StepStatus step={s} kind={simulatedKind(s)} simulated actionType={s.action?.actionType} />
          {typeof s.result === 'boolean' && simulatedKind(s) !== 'condition' && <span className={`outcome outcome-${String(s.result)}`}>{String(s.result)}</span>}
          {s.until ? <> <Until at={s.until} timeZone={timeZone} /></> : s.waitSeconds !== undefined && <span className="muted"> waits {s.waitSeconds} s</span>}
          {s.error && <div className="error-text">{s.error}</div>}
          {s.action && <Json value={s.action} />}
        </li>
      ))}
    </ol>
  );
}

/** What the simulation took for granted, in the server's words. */
function Assumptions({ list }: { list: string[] | undefined }) {
  if (!list || list.length === 0) return null;
  return (
    <>
      <h4>Assumed</h4>
      <ul className="muted small" data-testid="assumptions">
        {list.map((a, i) => (
          <li key={i}>{a}</li>
        ))}
      </ul>
    </>
  );
}

function DryRunResult({ result, timeZone }: { result: DryRun; timeZone: string }) {
  return (
    <div className="result stack" data-testid="dry-run-result">
      {result.at && (
        <p className="small" data-testid="dry-run-at" data-at={result.at}>
          As if it were {formatInstant(result.at, timeZone)}.
        </p>
      )}
      <h4>Path</h4>
      <StepList steps={result.steps} timeZone={timeZone} />
      <h4>Ticket changes</h4>
      {Object.keys(result.changes).length === 0 ? (
        <p className="muted">none</p>
      ) : (
        <ul>
          {Object.entries(result.changes).map(([field, c]) => (
            <li key={field}>
              <code>{field}</code>: {JSON.stringify(c.from)} → {JSON.stringify(c.to)}
            </li>
          ))}
        </ul>
      )}
      <h4>Would send</h4>
      {result.outbound.length === 0 ? <p className="muted">nothing</p> : result.outbound.map((o, i) => <Json key={i} value={o} />)}
      <Assumptions list={result.assumptions} />
    </div>
  );
}

function BacktestForm({ workflow, dirty, canvas, onOverlay }: Props) {
  const [days, setDays] = useState(7);
  const [limit, setLimit] = useState(200);
  const [assumeReply, setAssumeReply] = useState(false);
  const [result, setResult] = useState<Backtest | null>(null);
  const [shown, setShown] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const subjects = useTicketSubjects(result?.sample.map((s) => s.ticketId) ?? []);
  useEffect(() => () => onOverlay(null), [onOverlay]);
  useEffect(() => {
    const sample = shown !== null ? result?.sample[shown] : undefined;
    onOverlay(sample ? runOverlay(canvas, sample.steps, true, true) : null);
  }, [shown, result, canvas, onOverlay]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const until = new Date();
      const since = new Date(until.getTime() - days * 86_400_000);
      const answer = await api.backtest(workflow.id, { since: since.toISOString(), until: until.toISOString(), limit, assumeReply });
      setResult(answer);
      setShown(answer.sample.length > 0 ? 0 : null);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="stack" onSubmit={submit} data-testid="backtest-form">
      <p className="muted small">Replays the saved version over the events of its trigger recorded in the last days: nothing is written or sent.</p>
      {dirty && <p className="banner warn">The backtest uses the saved version; your unsaved changes are not in it.</p>}
      <label>
        Days back
        <input type="number" name="days" min={1} max={365} value={days} onChange={(e) => setDays(Math.max(1, Number(e.target.value) || 7))} />
      </label>
      <label>
        At most this many events
        <input type="number" name="limit" min={1} max={1000} value={limit} onChange={(e) => setLimit(Math.min(1000, Math.max(1, Number(e.target.value) || 200)))} />
      </label>
      <label className="inline">
        <input type="checkbox" checked={assumeReply} onChange={(e) => setAssumeReply(e.target.checked)} /> customers reply in time
      </label>
      <button type="submit" className="primary" data-action="backtest" disabled={busy}>{busy ? 'Replaying…' : 'Backtest'}</button>
      <ErrorBanner error={error} />
      {result && (
        <div className="result stack" data-testid="backtest-result">
          <p>
            <strong>{result.matched}</strong> of {result.eventsExamined} events would have run actions.
          </p>
          {Object.keys(result.actionsWouldRun).length > 0 && (
            <ul>
              {Object.entries(result.actionsWouldRun).map(([action, n]) => (
                <li key={action}>
                  <code>{action}</code> × {n}
                </li>
              ))}
            </ul>
          )}
          {result.sample.length > 0 && (
            <>
              <h4>Samples</h4>
              <ul className="samples">
                {result.sample.map((s, i) => (
                  <li key={i}>
                    <button type="button" className={`link${shown === i ? ' active' : ''}`} onClick={() => setShown(i)}>
                      <Time at={s.at} /> {s.ticketId && <TicketSubject id={s.ticketId} subjects={subjects} />}
                    </button>
                  </li>
                ))}
              </ul>
              {shown !== null && result.sample[shown] && <StepList steps={result.sample[shown].steps} />}
            </>
          )}
          <Assumptions list={result.assumptions} />
        </div>
      )}
    </form>
  );
}

/**
 * Picks a ticket: the newest ones to start with; a search asks the API for the tickets that
 * match its words (best match first) and picks the first found, or the ticket whose id was
 * pasted. The list below still offers the others.
 */
function TicketPicker({ value, onChange }: { value: string; onChange: (id: string) => void }) {
  const [tickets, setTickets] = useState<Ticket[]>([]);
  const [search, setSearch] = useState('');
  const [searched, setSearched] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let stop = false;
    const words = search.trim();
    const id = pickedTicket(words, []);
    // A pasted id is taken as it is; words are looked up once typing pauses.
    if (id) {
      onChange(id);
      return;
    }
    const timer = setTimeout(() => {
      api
        .listTickets({ filter: words ? { q: words } : {}, perPage: 50 })
        .then(({ data }) => {
          if (stop) return;
          setTickets(data);
          setSearched(words);
          setError(null);
          if (words) onChange(pickedTicket(words, data));
        })
        .catch((err) => !stop && setError(err));
    }, words ? 250 : 0);
    return () => {
      stop = true;
      clearTimeout(timer);
    };
    // onChange is the form's state setter, the same function on every render.
  }, [search, onChange]);
  const pasted = pickedTicket(search, []);
  return (
    <fieldset>
      <legend>Ticket</legend>
      <input name="ticketSearch" aria-label="Search tickets by subject, or paste an id" placeholder="Search by subject, or paste an id" value={search} onChange={(e) => setSearch(e.target.value)} />
      <select name="ticketId" aria-label="Ticket" value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">no ticket</option>
        {pasted && !tickets.some((t) => t.id === pasted) && <option value={pasted}>{pasted}</option>}
        {tickets.map((t) => (
          <option key={t.id} value={t.id}>{t.subject}</option>
        ))}
      </select>
      {searched && tickets.length === 0 && <p className="muted small" data-testid="no-ticket-found">No ticket matches "{searched}".</p>}
      <ErrorBanner error={error} />
    </fieldset>
  );
}
