import { useId } from 'react';
import { newConditionData } from '../model/fields.ts';
import { cellKey, METRIC_NAMES, PAUSABLE_STATUSES, SLA_METRICS, SLA_PRIORITIES, UNITS, type Duration, type SlaForm, type SlaMetric, type SlaPriority, type Unit } from '../model/sla-form.ts';
import { attainmentText } from '../model/sla-page.ts';
import { href } from '../router.ts';
import { CalendarPicker } from '../ui/CalendarPicker.tsx';
import { ConditionEditor } from '../ui/ConditionEditor.tsx';
import { ErrorBanner, Loading, NoticeBanner } from '../ui/common.tsx';
import { Field, FieldErrors } from '../ui/Field.tsx';
import { DeleteSlaPolicyDialog } from './SlaPoliciesPage.tsx';
import { useSlaPolicyPage, type SlaPolicyPageModel } from './sla/useSlaPolicyPage.ts';

/** The trigger whose context a policy's match reads: the ticket as it is. */
const MATCH_CONTEXT = 'ticket_created';

/**
 * An SLA policy made or changed: its name, which tickets, the calendar its time counts in, when
 * resolution stands still, its targets as a table of priorities × metrics, and the backtest of
 * the form as it is. Its state is console/src/model/sla-page.ts.
 */
export function SlaPolicyPage({ policyId }: { policyId: string | null }) {
  const page = useSlaPolicyPage(policyId);
  const { state, dispatch, dirty, messages } = page;
  const { policy, form } = state;
  if (!form) return state.error ? <ErrorBanner error={state.error} /> : <Loading />;
  const matchIssues = (state.issues?.match ?? []).map((i) => ({ ...i, field: `match.${i.field}` }));
  const wholeMatch = (state.issues?.match ?? []).filter((i) => i.field === '').map((i) => i.message);

  return (
    <section className="page sla-policy-page">
      <div className="page-head">
        <h1>
          <a href={href.sla()}>SLA policies</a> · {policy ? <span className="user-text">{policy.name}</span> : 'New policy'}
        </h1>
        <div className="toolbar">
          {dirty && <span className="unsaved" data-testid="unsaved">unsaved changes</span>}
          {policy && <button type="button" className="danger" onClick={() => dispatch({ type: 'askDelete' })}>Delete</button>}
        </div>
      </div>
      <ErrorBanner error={state.error} onClose={() => dispatch({ type: 'dismiss', what: 'error' })} />
      <NoticeBanner notice={state.notice} onClose={() => dispatch({ type: 'dismiss', what: 'notice' })} />
      <form className="sla-form stack" onSubmit={page.save} data-testid="sla-policy-form">
        <Field label="Name" messages={messages('name')}>
          {(id) => <input id={id} name="name" value={form.name} maxLength={200} required onChange={(e) => dispatch({ type: 'set', key: 'name', value: e.target.value })} />}
        </Field>
        <Field label="Description (optional)" messages={messages('description')}>
          {(id) => <textarea id={id} name="description" rows={2} value={form.description} maxLength={2000} onChange={(e) => dispatch({ type: 'set', key: 'description', value: e.target.value })} />}
        </Field>
        <label className="inline">
          <input type="checkbox" name="isActive" checked={form.isActive} onChange={(e) => dispatch({ type: 'setActive', value: e.target.checked })} />
          active: governs the tickets it matches
        </label>
        <FieldErrors messages={messages('isActive')} />

        <fieldset className={`match${state.issues?.match.length ? ' invalid' : ''}`}>
          <legend>Tickets</legend>
          <label className="inline">
            <input
              type="checkbox"
              name="matchSome"
              checked={form.match !== null}
              onChange={(e) => dispatch({ type: 'setMatch', match: e.target.checked ? newConditionData('equals', MATCH_CONTEXT) : null })}
            />
            only the tickets that match a condition (else every ticket)
          </label>
          {form.match !== null && (
            <>
              <p className="muted small">A condition on the ticket's fields (ticket.priority, ticket.tags, ticket.status…), tested whenever the ticket changes.</p>
              <ConditionEditor data={form.match} path="match." issues={matchIssues} triggerType={MATCH_CONTEXT} top onChange={(d) => dispatch({ type: 'setMatch', match: d })} />
            </>
          )}
          <FieldErrors messages={wholeMatch} />
        </fieldset>

        <Field label="Time counts" messages={messages('calendarId')} hint={<p className="muted small">With a calendar, targets count its open hours only (its zone, hours and holidays).</p>}>
          {(id) => <CalendarPicker id={id} name="calendarId" value={form.calendarId} optional onChange={(v) => dispatch({ type: 'set', key: 'calendarId', value: v ?? '' })} />}
        </Field>

        <fieldset className={messages('pauseOn').length ? 'invalid' : ''}>
          <legend>Resolution stops counting while the ticket is</legend>
          <div className="toolbar">
            {PAUSABLE_STATUSES.map((s) => (
              <label key={s} className="inline">
                <input type="checkbox" name={`pauseOn.${s}`} checked={form.pauseOn.includes(s)} onChange={(e) => dispatch({ type: 'togglePause', status: s, on: e.target.checked })} />
                {s}
              </label>
            ))}
          </div>
          <FieldErrors messages={messages('pauseOn')} />
        </fieldset>

        <TargetsTable page={page} form={form} />

        <div className="buttons">
          <a href={href.sla()}>Back to the policies</a>
          <button type="submit" className="primary" data-action="save-sla-policy" disabled={state.saving || (policy !== null && !dirty)}>
            {state.saving ? 'Saving…' : policy ? 'Save' : 'Create'}
          </button>
        </div>
      </form>
      <Backtest page={page} />
      {state.deleting && policy && <DeleteSlaPolicyDialog policy={policy} onClose={() => dispatch({ type: 'dismiss', what: 'deleting' })} onDeleted={page.deleted} />}
    </section>
  );
}

/** The targets: a row per priority, a column per metric; a cell left empty promises nothing. */
function TargetsTable({ page, form }: { page: SlaPolicyPageModel; form: SlaForm }) {
  const { messages } = page;
  return (
    <fieldset className={messages('targets').length ? 'invalid' : ''}>
      <legend>Targets</legend>
      <p className="muted small">
        Within how long, per priority: first reply from the ticket's creation, next reply from a customer's message, resolution from the creation (standing still in the statuses
        above). A warning (optional) starts <code>sla_warning</code> automations that long before the due time. Leave a cell empty for no target.
      </p>
      <table className="sla-targets" data-testid="sla-targets">
        <thead>
          <tr>
            <th scope="col">Priority</th>
            {SLA_METRICS.map((m) => (
              <th key={m} scope="col">{METRIC_NAMES[m]}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {SLA_PRIORITIES.map((p) => (
            <tr key={p} data-priority={p}>
              <th scope="row">{p}</th>
              {SLA_METRICS.map((m) => (
                <TargetCellInputs key={m} page={page} form={form} metric={m} priority={p} />
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <FieldErrors messages={messages('targets')} />
    </fieldset>
  );
}

function TargetCellInputs({ page, form, metric, priority }: { page: SlaPolicyPageModel; form: SlaForm; metric: SlaMetric; priority: SlaPriority }) {
  const { messages, dispatch } = page;
  const key = cellKey(metric, priority);
  const cell = form.cells[key];
  const what = `${priority} ${METRIC_NAMES[metric].toLowerCase()}`;
  const set = (part: 'due' | 'warn', change: { amount?: string; unit?: Unit }) => dispatch({ type: 'setCell', metric, priority, part, ...change });
  const due = messages(`${key}.seconds`);
  const warn = messages(`${key}.warnBeforeSeconds`);
  return (
    <td data-cell={key} className={[...messages(key), ...due, ...warn].length ? 'invalid' : ''}>
      <DurationInputs name={`targets.${key}.seconds`} label={`${what}: within`} value={cell.due} bad={due.length > 0} onChange={(c) => set('due', c)} />
      {cell.due.amount.trim() !== '' && (
        <div className="warn">
          <span className="muted small" aria-hidden="true">warn</span>
          <DurationInputs name={`targets.${key}.warnBeforeSeconds`} label={`${what}: warn before due`} value={cell.warn} bad={warn.length > 0} onChange={(c) => set('warn', c)} />
        </div>
      )}
      <FieldErrors messages={[...messages(key), ...due, ...warn]} />
    </td>
  );
}

/** An amount and its unit (seconds to days), each labelled for a screen reader. */
function DurationInputs({ name, label, value, bad, onChange }: { name: string; label: string; value: Duration; bad: boolean; onChange: (c: { amount?: string; unit?: Unit }) => void }) {
  return (
    <span className="duration">
      <input name={name} aria-label={label} className={bad ? 'bad' : ''} inputMode="decimal" size={4} value={value.amount} aria-invalid={bad || undefined} onChange={(e) => onChange({ amount: e.target.value })} />
      <select name={`${name}.unit`} aria-label={`${label} (unit)`} value={value.unit} onChange={(e) => onChange({ unit: e.target.value as Unit })}>
        {(Object.keys(UNITS) as Unit[]).map((u) => (
          <option key={u} value={u}>{u}</option>
        ))}
      </select>
    </span>
  );
}

/** The form as it is, tried on the tickets of the last days: attainment per metric and priority. */
function Backtest({ page }: { page: SlaPolicyPageModel }) {
  const { state, dispatch, messages } = page;
  const { days, running, result, error } = state.backtest;
  const headingId = useId();
  return (
    <section className="sla-backtest" aria-labelledby={headingId}>
      <h2 id={headingId}>Try it on recorded tickets</h2>
      <p className="muted small">What this policy, as on the form (saved or not), would have said of the tickets created in the last days, replayed from their replies and status changes. Nothing is written.</p>
      <div className="toolbar">
        <Field label="Days (1-90)" messages={messages('days')}>
          {(id) => <input id={id} name="days" type="number" min={1} max={90} value={days} onChange={(e) => dispatch({ type: 'setBacktestDays', days: e.target.value })} />}
        </Field>
        <button type="button" data-action="run-sla-backtest" disabled={running} onClick={() => void page.backtest()}>{running ? 'Trying…' : 'Try it'}</button>
      </div>
      <ErrorBanner error={error} />
      {result && (
        <div data-testid="sla-backtest-result">
          <p>
            <strong data-testid="sla-backtest-tickets">{result.tickets}</strong> {result.tickets === 1 ? 'ticket' : 'tickets'} governed.
          </p>
          {result.targets.length === 0 ? (
            <p className="muted">The policy has no targets.</p>
          ) : (
            <table className="list">
              <thead>
                <tr>
                  <th scope="col">Metric</th>
                  <th scope="col">Priority</th>
                  <th scope="col">Met</th>
                  <th scope="col">Breached</th>
                  <th scope="col">Running</th>
                  <th scope="col">Attainment</th>
                </tr>
              </thead>
              <tbody>
                {result.targets.map((t) => (
                  <tr key={`${t.metric}.${t.priority}`} data-target={`${t.metric}.${t.priority}`}>
                    <td>{METRIC_NAMES[t.metric] ?? t.metric}</td>
                    <td>{t.priority}</td>
                    <td>{t.met}</td>
                    <td>{t.breached}</td>
                    <td>{t.running}</td>
                    <td className="attainment">{attainmentText(t.attainment)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
    </section>
  );
}
