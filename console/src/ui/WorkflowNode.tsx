import { memo } from 'react';
import { Handle, Position, type NodeProps, type Node } from '@xyflow/react';
import type { FieldIssue } from '../model/issues.ts';
import { duration, type NodeRun } from '../model/overlay.ts';
import { summarize } from '../model/summary.ts';
import { useCalendars } from './calendars.tsx';
import { StepStatus, Until } from './common.tsx';

export type NodeView = {
  kind: 'trigger' | 'condition' | 'action';
  data: Record<string, unknown>;
  branching: boolean;
  run?: NodeRun;
  issues?: FieldIssue[];
  /** Where the issues come from: the server's answer to a save, or the same validator run in the page. */
  issueSource?: 'server' | 'page';
};

export type WorkflowFlowNode = Node<NodeView, 'workflow'>;

/** A node's card: its id and label, what it does, its problems, and its part in the run shown. */
export const WorkflowNode = memo(function WorkflowNode({ id, data, selected }: NodeProps<WorkflowFlowNode>) {
  const { kind, run, issues, branching } = data;
  const label = typeof data.data.label === 'string' && data.data.label !== '' ? data.data.label : null;
  const classes = ['wf-node', `kind-${kind}`, selected ? 'selected' : '', run ? `run-${run.status.replace(/[^a-z_]/g, '')}` : '', issues?.length ? 'has-issues' : ''];
  const took = run ? duration(run.startedAt, run.completedAt) : undefined;
  const calendars = useCalendars();
  const names = (calendarId: unknown) => calendars.byId(calendarId)?.name;
  return (
    <div className={classes.join(' ')} data-node-id={id} data-kind={kind} data-run-status={run?.status} data-issue-source={issues?.length ? data.issueSource : undefined}>
      {kind !== 'trigger' && <Handle type="target" position={Position.Top} />}
      <div className="wf-node-head">
        <span className="wf-node-kind">{kind}</span>
        <span className="wf-node-id">{label ?? id}</span>
        {run && <StepStatus step={run} kind={kind} simulated={run.simulated} actionType={data.data.actionType} />}
      </div>
      <div className="wf-node-summary">{summarize(kind, data.data, names)}</div>
      {run && ((run.result !== undefined && kind !== 'condition') || took || run.error || run.until) && (
        <div className="wf-node-run">
          {typeof run.result === 'boolean' && kind !== 'condition' && <span className={`outcome outcome-${String(run.result)}`}>{String(run.result)}</span>}
          {run.result !== undefined && typeof run.result !== 'boolean' && <span className="muted">{resultLine(run.result)}</span>}
          {took && <span className="muted">{took}</span>}
          {run.until && <Until at={run.until} timeZone={calendars.byId(data.data.calendarId)?.timeZone} />}
          {run.error && <div className="wf-node-error">{run.error}</div>}
        </div>
      )}
      {issues && issues.length > 0 && (
        <ul className="wf-node-issues" role="alert">
          {issues.map((issue, i) => (
            <li key={i}>{issue.message}</li>
          ))}
        </ul>
      )}
      {branching ? (
        <>
          <Handle type="source" position={Position.Bottom} id="true" className="handle-true" style={{ left: '30%' }} />
          <Handle type="source" position={Position.Bottom} id="false" className="handle-false" style={{ left: '70%' }} />
          <div className="handle-labels"><span>true</span><span>false</span></div>
        </>
      ) : (
        <Handle type="source" position={Position.Bottom} />
      )}
    </div>
  );
});

/** An action's result in a few words: an HTTP status, a reply's message id, an approval's decision. */
export function resultLine(result: unknown): string {
  if (result && typeof result === 'object') {
    const r = result as Record<string, unknown>;
    if (typeof r.status === 'number') return `HTTP ${r.status}`;
    if (typeof r.messageId === 'string') return 'reply sent';
    if (typeof r.approvalId === 'string') {
      const by = Array.isArray(r.decidedBy) && r.decidedBy.length ? ` by ${r.decidedBy.join(', ')}` : '';
      return typeof r.decision === 'string' ? `${r.decision}${by}` : 'waiting for a decision';
    }
  }
  return JSON.stringify(result) ?? '';
}
