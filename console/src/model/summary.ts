// One line that says what a node does, for its card on the canvas.

const short = (v: unknown, max = 48): string => {
  const s = typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? String(v);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
};

function condition(data: Record<string, unknown>): string {
  if (Array.isArray(data.conditions)) {
    return `${data.match === 'any' ? 'any' : 'all'} of ${data.conditions.length} condition${data.conditions.length === 1 ? '' : 's'}`;
  }
  const value = Object.hasOwn(data, 'value') ? ` ${short(data.value)}` : '';
  return `${String(data.field ?? '?')} ${String(data.operator ?? '?').replace(/_/g, ' ')}${value}`;
}

function action(data: Record<string, unknown>): string {
  const { actionType, label: _label, ...params } = data;
  const values = Object.entries(params).map(([k, v]) => (typeof v === 'string' || typeof v === 'number' ? `${k}: ${short(v, 40)}` : k));
  return `${String(actionType ?? '?')}${values.length ? ` · ${values.join(', ')}` : ''}`;
}

export function summarize(kind: string, data: Record<string, unknown>): string {
  if (kind === 'trigger') {
    const schedule = data.cron ? ` · cron ${String(data.cron)}` : data.intervalSeconds ? ` · every ${String(data.intervalSeconds)} s` : '';
    return `${String(data.triggerType ?? '?')}${schedule}`;
  }
  if (kind === 'condition') return condition(data);
  return action(data);
}
