import { useCallback, useEffect, useMemo, useState } from 'react';
import { ReactFlowProvider } from '@xyflow/react';
import { api, temporalRunUrl, type Execution, type Message, type Workflow } from '../api.ts';
import { canvasOf } from '../model/layout.ts';
import { FINISHED, duration, runOverlay } from '../model/overlay.ts';
import { RunStatus } from './RunsPage.tsx';
import { href } from '../router.ts';
import { useCalendars } from '../ui/calendars.tsx';
import { ErrorBanner, Json, Loading, StepStatus, Time, Until } from '../ui/common.tsx';
import { FlowCanvas } from '../ui/FlowCanvas.tsx';
import { TicketName, useTicketSubjects } from '../ui/tickets.tsx';
import { resultLine } from '../ui/WorkflowNode.tsx';
import { StepApproval } from '../ui/StepApproval.tsx';

/** One execution painted on its workflow's graph, updated live while it runs. */
export function RunPage({ workflowId, executionId }: { workflowId: string; executionId: string }) {
  const [workflow, setWorkflow] = useState<Workflow | null>(null);
  const [execution, setExecution] = useState<Execution | null>(null);
  const [replies, setReplies] = useState<ReadonlyMap<string, Message>>(new Map());
  const [error, setError] = useState<unknown>(null);
  const [cancelling, setCancelling] = useState(false);
  const calendars = useCalendars();
  const subjects = useTicketSubjects([execution?.ticketId]);

  useEffect(() => {
    api.getWorkflow(workflowId).then(({ workflow }) => setWorkflow(workflow), setError);
  }, [workflowId]);

  const refresh = useCallback(async () => {
    try {
      setExecution(await api.getExecution(workflowId, executionId));
    } catch (err) {
      setError(err);
    }
  }, [workflowId, executionId]);

  const finished = execution ? FINISHED.includes(execution.status) : false;
  useEffect(() => {
    void refresh();
  }, [refresh]);
  // Live while it runs: the API is polled every second until the execution has ended.
  useEffect(() => {
    if (!execution || finished) return;
    const timer = setInterval(() => void refresh(), 1000);
    return () => clearInterval(timer);
  }, [execution, finished, refresh]);

  // The replies the run sent, to show their text beside their node.
  const ticketId = execution?.ticketId;
  const replyIds = useMemo(() => (execution?.steps ?? []).map((s) => (s.result as { messageId?: string } | undefined)?.messageId).filter(Boolean).join(','), [execution]);
  useEffect(() => {
    if (!ticketId || !replyIds) return;
    api.listMessages(ticketId, { limit: 200 }).then((m) => setReplies(new Map(m.data.map((x) => [x.id, x]))), () => {});
  }, [ticketId, replyIds]);

  const canvas = useMemo(() => (workflow ? canvasOf(workflow.workflowJson) : null), [workflow]);
  const overlay = useMemo(() => (canvas && execution ? runOverlay(canvas, execution.steps, finished) : null), [canvas, execution, finished]);

  if (error && (!workflow || !execution)) return <ErrorBanner error={error} />;
  if (!workflow || !execution || !canvas || !overlay) return <Loading />;

  const link = temporalRunUrl(execution.runId);
  const cancel = async () => {
    setCancelling(true);
    try {
      setExecution(await api.cancelExecution(workflowId, executionId));
    } catch (err) {
      setError(err);
    } finally {
      setCancelling(false);
    }
  };

  return (
    <section className="editor run-view">
      <div className="editor-head">
        <div className="titles">
          <h1>
            <a href={href.runs(workflow.id)} className="user-text">{workflow.name}</a> · run <RunStatus execution={execution} />
          </h1>
          <div className="muted small">
            started <Time at={execution.startedAt} />
            {execution.completedAt && <> · ended <Time at={execution.completedAt} /> ({duration(execution.startedAt, execution.completedAt)})</>}
            {' · '}triggered by <code>{execution.triggeredBy}</code>
            {execution.ticketId && <> · ticket <TicketName id={execution.ticketId} subjects={subjects} /></>}
          </div>
        </div>
        <div className="toolbar">
          {!finished && (
            <button type="button" className="danger" data-action="cancel" disabled={cancelling} onClick={() => void cancel()}>
              {cancelling ? 'Cancelling…' : 'Cancel this run'}
            </button>
          )}
          {link && (
            <a href={link} target="_blank" rel="noopener noreferrer" data-testid="temporal-link">
              Open in Temporal Web UI
            </a>
          )}
          <a href={href.editor(workflow.id)}>Edit the workflow</a>
        </div>
      </div>
      <ErrorBanner error={error} onClose={() => setError(null)} />
      {execution.error && (
        <div className="banner error" data-testid="execution-error">
          {execution.error}
        </div>
      )}
      {(execution.workflowVersion !== workflow.version || overlay.missing.length > 0) && (
        <div className="banner warn">
          This run used version {execution.workflowVersion}; the graph drawn is the current version {workflow.version}.
          {overlay.missing.length > 0 && <> Nodes of that run no longer in it: {overlay.missing.join(', ')}.</>}
        </div>
      )}
      <div className="editor-body">
        <div className="canvas" data-testid="canvas">
          <ReactFlowProvider>
            <FlowCanvas canvas={canvas} overlay={overlay} editable={false} />
          </ReactFlowProvider>
        </div>
        <aside className="right wide">
          <h3>Steps</h3>
          <ol className="steps" data-testid="steps">
            {canvas.nodes.map((n) => {
              const run = overlay.nodes.get(n.id)!;
              const reply = replies.get((run.result as { messageId?: string } | undefined)?.messageId ?? '');
              const approvalId = n.data.data.actionType === 'request_approval' ? (run.result as { approvalId?: string } | undefined)?.approvalId : undefined;
              return (
                <li key={n.id} data-step={n.id} data-status={run.status}>
                  <code>{n.id}</code> <StepStatus step={run} kind={n.type} />
                  {typeof run.result === 'boolean' && n.type !== 'condition' && <span className={`outcome outcome-${String(run.result)}`}>{String(run.result)}</span>}
                  {run.startedAt && (
                    <div className="muted small">
                      <Time at={run.startedAt} />
                      {duration(run.startedAt, run.completedAt) ? ` · ${duration(run.startedAt, run.completedAt)}` : run.status === 'waiting' ? ' · waiting' : ''}
                    </div>
                  )}
                  {run.until && (
                    <div className="small">
                      {run.status === 'waiting' ? 'waiting ' : ''}
                      <Until at={run.until} timeZone={calendars.byId(n.data.data.calendarId)?.timeZone} />
                    </div>
                  )}
                  {run.error && <div className="error-text">{run.error}</div>}
                  {approvalId && <StepApproval approvalId={approvalId} stepStatus={run.status} />}
                  {run.result !== undefined && typeof run.result !== 'boolean' && (
                    <details>
                      <summary>{resultLine(run.result)}</summary>
                      {reply ? <blockquote className="message-body">{reply.body}</blockquote> : <Json value={run.result} />}
                    </details>
                  )}
                </li>
              );
            })}
          </ol>
        </aside>
      </div>
    </section>
  );
}
