import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { TRIGGER_TYPES, type TriggerType } from '../../../src/graph/index.ts';
import { api, type WorkflowListItem } from '../api.ts';
import { href, navigate } from '../router.ts';
import { Dialog, ErrorBanner, Loading, Time } from '../ui/common.tsx';

type Filter = 'all' | 'active' | 'inactive';

export function WorkflowsPage() {
  const [filter, setFilter] = useState<Filter>('all');
  const [workflows, setWorkflows] = useState<WorkflowListItem[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<WorkflowListItem | null>(null);

  const load = useCallback(async () => {
    try {
      setWorkflows(await api.listWorkflows(filter === 'all' ? undefined : filter === 'active'));
    } catch (err) {
      setError(err);
    }
  }, [filter]);
  useEffect(() => {
    void load();
  }, [load]);

  const toggle = async (w: WorkflowListItem) => {
    setError(null);
    try {
      await api.updateWorkflow(w.id, { isActive: !w.isActive });
      await load();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <section className="page">
      <div className="page-head">
        <h1>Workflows</h1>
        <div className="toolbar">
          <label>
            Show{' '}
            <select name="activeFilter" value={filter} onChange={(e) => setFilter(e.target.value as Filter)}>
              <option value="all">all</option>
              <option value="active">active only</option>
              <option value="inactive">inactive only</option>
            </select>
          </label>
          <button type="button" className="primary" onClick={() => setCreating(true)}>New workflow</button>
        </div>
      </div>
      <ErrorBanner error={error} onClose={() => setError(null)} />
      {workflows === null ? (
        <Loading />
      ) : workflows.length === 0 ? (
        <p className="muted">No workflows {filter === 'all' ? 'yet' : 'here'}. Create one and draw it.</p>
      ) : (
        <table className="list" data-testid="workflow-list">
          <thead>
            <tr>
              <th>Name</th>
              <th>Trigger</th>
              <th>Active</th>
              <th>Version</th>
              <th>Triggered</th>
              <th>Last triggered</th>
              <th><span className="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {workflows.map((w) => (
              <tr key={w.id} data-workflow-id={w.id}>
                <td>
                  <a className="workflow-name" href={href.editor(w.id)}>{w.name}</a>
                  {w.description && <div className="muted small">{w.description}</div>}
                </td>
                <td><code>{w.triggerType}</code></td>
                <td>
                  <label className="switch">
                    <input type="checkbox" checked={w.isActive} onChange={() => void toggle(w)} aria-label={`Active: ${w.name}`} />
                    {w.isActive ? 'active' : 'inactive'}
                  </label>
                </td>
                <td>{w.version}</td>
                {/* Every run counts, those that took no action too: the runs page tells them apart. */}
                <td><a href={href.runs(w.id)}>{w.executionCount === 1 ? '1 time' : `${w.executionCount} times`}</a></td>
                <td><Time at={w.lastTriggeredAt} /></td>
                <td className="actions">
                  <a href={href.editor(w.id)}>Edit</a>
                  <a href={href.runs(w.id)}>Runs</a>
                  <button type="button" className="link danger" onClick={() => setDeleting(w)}>Delete</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {creating && <CreateDialog onClose={() => setCreating(false)} />}
      {deleting && (
        <Dialog title="Delete this workflow?" onClose={() => setDeleting(null)}>
          <p>
            <strong className="user-text">{deleting.name}</strong> will be gone for good, and its running executions are cancelled. This cannot be undone.
          </p>
          <div className="buttons">
            <button type="button" onClick={() => setDeleting(null)}>Keep it</button>
            <button
              type="button"
              className="danger"
              onClick={async () => {
                try {
                  await api.deleteWorkflow(deleting.id);
                  setDeleting(null);
                  await load();
                } catch (err) {
                  setDeleting(null);
                  setError(err);
                }
              }}
            >
              Delete for good
            </button>
          </div>
        </Dialog>
      )}
    </section>
  );
}

function CreateDialog({ onClose }: { onClose: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [triggerType, setTriggerType] = useState<TriggerType>('ticket_created');
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const created = await api.createWorkflow({ name, description: description.trim() === '' ? undefined : description, triggerType });
      onClose();
      navigate(href.editor(created.id));
    } catch (err) {
      setError(err);
    }
  };
  return (
    <Dialog title="New workflow" onClose={onClose}>
      <form onSubmit={submit} className="stack">
        <label>
          Name
          <input name="name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} autoFocus />
        </label>
        <label>
          Description
          <textarea name="description" value={description} onChange={(e) => setDescription(e.target.value)} maxLength={2000} rows={2} />
        </label>
        <label>
          Trigger
          <select name="triggerType" value={triggerType} onChange={(e) => setTriggerType(e.target.value as TriggerType)}>
            {TRIGGER_TYPES.map((t) => (
              <option key={t} value={t}>{t}</option>
            ))}
          </select>
        </label>
        <p className="muted small">It starts inactive, with just its trigger: draw the rest, try it, then activate it.</p>
        <ErrorBanner error={error} />
        <div className="buttons">
          <button type="button" onClick={onClose}>Cancel</button>
          <button type="submit" className="primary">Create and draw</button>
        </div>
      </form>
    </Dialog>
  );
}
