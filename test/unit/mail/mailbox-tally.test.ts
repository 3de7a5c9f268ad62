import { describe, expect, it } from 'vitest';
import { mailTally } from '../../../src/mail/mailboxes.ts';
import { RECEIPT_OUTCOMES } from '../../../src/mail/entity.ts';

describe('the mail counts of `mailbox list`', () => {
  it('counts tickets and replies as imported, and the same mail delivered again as ignored, not imported', () => {
    expect(mailTally([{ outcome: 'ticket', n: '3' }, { outcome: 'reply', n: '2' }, { outcome: 'duplicate', n: '4' }])).toEqual({ imported: 5, ignored: 4, skipped: 0 });
  });

  it('puts every outcome in one bucket: own, bounces and automatic mail ignored; too large, unreadable and failed skipped', () => {
    expect(mailTally(RECEIPT_OUTCOMES.map((outcome) => ({ outcome, n: 1 })))).toEqual({ imported: 2, ignored: 4, skipped: 3 });
    expect(mailTally([])).toEqual({ imported: 0, ignored: 0, skipped: 0 });
  });
});
