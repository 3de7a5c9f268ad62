// Undo and redo of the editor: a list of canvas states. Typing in one field of one node is one
// step, not one per keystroke: a change with the same `coalesce` key as the one before, within
// `windowMs`, replaces it. Pure: the editor keeps the value and renders from it.

export type History<T> = {
  past: T[];
  present: T;
  future: T[];
  /** The key and time of the last change, to coalesce the next one with. */
  last?: { key: string; at: number };
};

export const LIMIT = 200;

export function start<T>(present: T): History<T> {
  return { past: [], present, future: [] };
}

export function record<T>(h: History<T>, next: T, opts: { coalesce?: string; at?: number; windowMs?: number } = {}): History<T> {
  if (next === h.present) return h;
  const at = opts.at ?? 0;
  const merge = opts.coalesce !== undefined && h.last?.key === opts.coalesce && at - h.last.at <= (opts.windowMs ?? 1500);
  const past = merge ? h.past : [...h.past, h.present].slice(-LIMIT);
  return { past, present: next, future: [], last: opts.coalesce !== undefined ? { key: opts.coalesce, at } : undefined };
}

/** A change that is not a step of its own (a node's size measured, a selection): it joins the present state. */
export function replace<T>(h: History<T>, next: T): History<T> {
  return { ...h, present: next };
}

export function undo<T>(h: History<T>): History<T> {
  if (h.past.length === 0) return h;
  return { past: h.past.slice(0, -1), present: h.past[h.past.length - 1], future: [h.present, ...h.future] };
}

export function redo<T>(h: History<T>): History<T> {
  if (h.future.length === 0) return h;
  return { past: [...h.past, h.present], present: h.future[0], future: h.future.slice(1) };
}
