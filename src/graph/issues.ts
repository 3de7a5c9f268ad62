// Collecting validation issues. A 1 MiB workflowJson can be wrong in thousands of places;
// the API answers with the first MAX_ISSUES so the error body stays readable and bounded.

import { quote } from './text.ts';
import type { GraphIssue } from './types.ts';

export const MAX_ISSUES = 50;

export class IssueList {
  readonly #items: GraphIssue[] = [];
  #dropped = 0;

  add(path: string, message: string): void {
    if (this.#items.length < MAX_ISSUES) this.#items.push({ path, message });
    else this.#dropped += 1;
  }

  get count(): number {
    return this.#items.length + this.#dropped;
  }

  /** The issues, with a closing note when some were left out. */
  list(): GraphIssue[] {
    if (this.#dropped === 0) return [...this.#items];
    return [
      ...this.#items,
      { path: 'workflowJson', message: `${this.#dropped} more issue(s) not shown; fix the ones above first` },
    ];
  }
}

/** Where a node's data is validated: the issue sink, the data path and the node's name. */
export interface Scope {
  issues: IssueList;
  /** Path of the value being checked, e.g. `workflowJson.nodes[2].data`. */
  path: string;
  /** How messages name the node, e.g. `node "c1"`. */
  who: string;
}

/** `node "c1"`, or `nodes[3]` when the node has no usable id. */
export function nodeName(id: unknown, index: number): string {
  return typeof id === 'string' && id !== '' ? `node ${quote(id)}` : `nodes[${index}]`;
}

/** `edge 0 (c1 → a9)`; a missing or ill-typed endpoint shows as `?`. */
export function edgeName(index: number, source: unknown, target: unknown): string {
  const end = (v: unknown): string => (typeof v === 'string' && v !== '' ? quoteBare(v) : '?');
  return `edge ${index} (${end(source)} → ${end(target)})`;
}

/** An id as written when it is plain, JSON-quoted when it has spaces or odd characters. */
function quoteBare(id: string): string {
  return /^[\w.:-]{1,60}$/.test(id) ? id : quote(id);
}

/** `a.b` for identifier keys, `a["x-y"]` for the rest, so a path is unambiguous. */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}
