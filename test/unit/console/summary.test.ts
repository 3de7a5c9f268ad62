// A node's line on the canvas (console/src/model/summary.ts): calendars by name, durations as people say them.
import { describe, expect, it } from 'vitest';
import { summarize } from '../../../console/src/model/summary.ts';

const ID = '3f0c8a52-6f1e-4d8b-9a51-0c1c2b7e4d10';
const names = (id: unknown) => (typeof id === 'string' && id.toLowerCase() === ID ? 'Berlin office' : undefined);

describe('summarize', () => {
  it('names the calendar of a business-hours condition and says an age in open hours', () => {
    expect(summarize('condition', { field: 'ticket.createdAt', operator: 'outside_business_hours', value: ID }, names)).toBe('ticket.createdAt outside business hours · Berlin office');
    expect(summarize('condition', { field: 'now', operator: 'in_business_hours', value: ID.toUpperCase() }, names)).toBe('now in business hours · Berlin office');
    expect(summarize('condition', { field: 'now', operator: 'in_business_hours', value: '' }, names)).toBe('now in business hours · no calendar chosen');
    expect(summarize('condition', { field: 'now', operator: 'in_business_hours', value: '00000000-0000-4000-8000-000000000000' }, names)).toBe('now in business hours · unknown calendar 00000000…');
    expect(summarize('condition', { field: 'ticket.updatedAt', operator: 'older_than', value: { seconds: 57600, calendarId: ID } }, names)).toBe('ticket.updatedAt older than 16 h of open time · Berlin office');
    expect(summarize('condition', { field: 'ticket.updatedAt', operator: 'newer_than', value: { seconds: 172800 } }, names)).toBe('ticket.updatedAt newer than 2 d');
    expect(summarize('condition', { field: 'ticket.subject', operator: 'contains', value: 'urgent' }, names)).toBe('ticket.subject contains "urgent"');
  });

  it('says waits in open hours with their calendar, in the order src/graph lists the parameters', () => {
    expect(summarize('action', { calendarId: ID, actionType: 'delay', businessSeconds: 57600 }, names)).toBe('delay · businessSeconds: 16 h of open time, calendar: Berlin office');
    expect(summarize('action', { actionType: 'delay', seconds: 90 }, names)).toBe('delay · seconds: 1 min 30 s');
    expect(summarize('action', { actionType: 'wait_for_reply', timeoutSeconds: 144000, calendarId: ID }, names)).toBe('wait_for_reply · timeoutSeconds: 40 h of open time, calendar: Berlin office');
    expect(summarize('action', { actionType: 'wait_for_reply', timeoutSeconds: 144000 }, names)).toBe('wait_for_reply · timeoutSeconds: 1 d 16 h');
    expect(summarize('action', { actionType: 'add_tag', tag: 'vip' }, names)).toBe('add_tag · tag: "vip"');
  });

  it('says a schedule\'s interval as a duration', () => {
    expect(summarize('trigger', { triggerType: 'scheduled', intervalSeconds: 3600 })).toBe('scheduled · every 1 h');
    expect(summarize('trigger', { triggerType: 'scheduled', cron: '0 9 * * 1-5' })).toBe('scheduled · cron 0 9 * * 1-5');
  });
});
