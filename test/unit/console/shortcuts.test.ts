// The inbox's and the ticket page's keys (console/src/model/shortcuts.ts).
import { describe, expect, it } from 'vitest';
import { commandOf, isTyping, moveCursor, sendsComposer } from '../../../console/src/model/shortcuts.ts';

const body = { tagName: 'BODY' };
const LIST = ['next', 'previous', 'open', 'search'] as const;
const TICKET = ['reply', 'note', 'search'] as const;

describe('keys', () => {
  it('j/k move, o opens and / searches in a list; r and n write on a ticket', () => {
    expect(['j', 'k', 'o', 'Enter', '/', 'r'].map((key) => commandOf({ key, target: body }, LIST))).toEqual(['next', 'previous', 'open', 'open', 'search', null]);
    expect(['r', 'n', '/', 'j'].map((key) => commandOf({ key, target: body }, TICKET))).toEqual(['reply', 'note', 'search', null]);
  });

  it('are letters typed while the agent writes in a field', () => {
    for (const target of [{ tagName: 'INPUT' }, { tagName: 'input', type: 'search' }, { tagName: 'TEXTAREA' }, { tagName: 'SELECT' }, { tagName: 'DIV', isContentEditable: true }]) {
      expect(isTyping(target)).toBe(true);
      expect(commandOf({ key: 'j', target }, LIST)).toBeNull();
    }
    // A checkbox or a radio takes no typing: the keys work there.
    expect(commandOf({ key: 'n', target: { tagName: 'INPUT', type: 'radio' } }, TICKET)).toBe('note');
  });

  it('leave the browser its own: Ctrl, Alt and Meta, and Enter on a link or a button', () => {
    expect(commandOf({ key: 'r', ctrlKey: true, target: body }, TICKET)).toBeNull();
    expect(commandOf({ key: 'k', metaKey: true, target: body }, LIST)).toBeNull();
    expect(commandOf({ key: '/', altKey: true, target: body }, LIST)).toBeNull();
    expect(commandOf({ key: 'Enter', target: { tagName: 'A' } }, LIST)).toBeNull();
    expect(commandOf({ key: 'Enter', target: { tagName: 'BUTTON' } }, LIST)).toBeNull();
  });

  it('move the cursor within the rows, starting at the first (j) or the last (k)', () => {
    expect(moveCursor(null, 3, 'next')).toBe(0);
    expect(moveCursor(null, 3, 'previous')).toBe(2);
    expect(moveCursor(0, 3, 'next')).toBe(1);
    expect(moveCursor(2, 3, 'next')).toBe(2);
    expect(moveCursor(0, 3, 'previous')).toBe(0);
    expect(moveCursor(5, 3, 'next')).toBe(0);
    expect(moveCursor(1, 0, 'next')).toBeNull();
  });

  it('send the composer with Ctrl+Enter or ⌘+Enter, not Enter alone', () => {
    expect(sendsComposer({ key: 'Enter', ctrlKey: true })).toBe(true);
    expect(sendsComposer({ key: 'Enter', metaKey: true })).toBe(true);
    expect(sendsComposer({ key: 'Enter' })).toBe(false);
    expect(sendsComposer({ key: 'Enter', ctrlKey: true, altKey: true })).toBe(false);
    expect(sendsComposer({ key: 's', ctrlKey: true })).toBe(false);
  });
});
