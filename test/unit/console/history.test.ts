// Undo and redo of the editor (console/src/model/history.ts).
import { describe, expect, it } from 'vitest';
import { record, redo, replace, start, undo } from '../../../console/src/model/history.ts';

describe('history', () => {
  it('undoes and redoes changes in order; a new change drops what could be redone', () => {
    let h = record(record(start('a'), 'b'), 'c');
    h = undo(h);
    expect(h.present).toBe('b');
    h = undo(h);
    expect(h.present).toBe('a');
    expect(undo(h)).toBe(h);
    h = redo(h);
    expect(h.present).toBe('b');
    h = record(h, 'd');
    expect(h.future).toEqual([]);
    expect(redo(h)).toBe(h);
    expect(undo(h).present).toBe('b');
  });

  it('makes typing in one field one step, and a pause or another field a new one', () => {
    let h = start('');
    h = record(h, 'H', { coalesce: 'tag', at: 0 });
    h = record(h, 'Hi', { coalesce: 'tag', at: 500 });
    h = record(h, 'Hi!', { coalesce: 'tag', at: 900 });
    expect(undo(h).present).toBe('');
    h = record(h, 'Hi! ', { coalesce: 'tag', at: 5000 });
    expect(undo(h).present).toBe('Hi!');
    h = record(h, 'x', { coalesce: 'body', at: 5100 });
    expect(undo(h).present).toBe('Hi! ');
  });

  it('keeps replaced states out of the steps', () => {
    const h = replace(record(start(1), 2), 3);
    expect(h.present).toBe(3);
    expect(undo(h).present).toBe(1);
  });
});
