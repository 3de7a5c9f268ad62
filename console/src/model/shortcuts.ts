// The inbox's and the ticket page's keys: j/k move in a list, Enter or o opens, r replies,
// n notes, / searches; none of them while the agent types in a field, or with Ctrl, Alt or Meta
// held (the browser's own shortcuts). In the composer, Ctrl+Enter (⌘+Enter) sends. Pure: a key
// press in, what it does out. Unit-tested in test/unit/console/shortcuts.test.ts.

/** What the handlers read of a KeyboardEvent (which is one). */
export type KeyPress = {
  key: string;
  ctrlKey?: boolean;
  metaKey?: boolean;
  altKey?: boolean;
  /** The element the key went to. */
  target?: unknown;
};

/** What an element the key went to tells of itself. */
type Target = { tagName?: string; isContentEditable?: boolean; type?: string };
const asTarget = (target: unknown): Target => (typeof target === 'object' && target !== null ? (target as Target) : {});

export type Command = 'next' | 'previous' | 'open' | 'reply' | 'note' | 'search';

/** Inputs that take no typing: a key pressed on them is a shortcut all the same. */
const UNTYPED = ['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file'];

/** Whether the key goes to a field the agent types in (text, a text area, a select, an editable element). */
export function isTyping(target: unknown): boolean {
  const { isContentEditable, tagName, type } = asTarget(target);
  if (isContentEditable) return true;
  const tag = (tagName ?? '').toUpperCase();
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  return tag === 'INPUT' && !UNTYPED.includes((type ?? 'text').toLowerCase());
}

const KEYS: Record<string, Command> = { j: 'next', k: 'previous', o: 'open', Enter: 'open', r: 'reply', n: 'note', '/': 'search' };

/** The command of a key press, among those `allowed` where it was pressed; null when it is not one (or the agent is typing). */
export function commandOf<C extends Command>(press: KeyPress, allowed: readonly C[]): C | null {
  if (press.ctrlKey || press.metaKey || press.altKey) return null;
  if (isTyping(press.target)) return null;
  // Enter on a link or a button is the browser's: it follows or presses that.
  if (press.key === 'Enter' && ['A', 'BUTTON'].includes((asTarget(press.target).tagName ?? '').toUpperCase())) return null;
  const command = KEYS[press.key] as C | undefined;
  return command && allowed.includes(command) ? command : null;
}

/** The row the cursor goes to: one down or up, staying within the `count` rows; the first when none was. */
export function moveCursor(current: number | null, count: number, command: 'next' | 'previous'): number | null {
  if (count === 0) return null;
  if (current === null || current >= count) return command === 'next' ? 0 : count - 1;
  return command === 'next' ? Math.min(count - 1, current + 1) : Math.max(0, current - 1);
}

/** Whether a key press in the composer sends it: Ctrl+Enter, or ⌘+Enter on a Mac. */
export function sendsComposer(press: KeyPress): boolean {
  return press.key === 'Enter' && (!!press.ctrlKey || !!press.metaKey) && !press.altKey;
}
