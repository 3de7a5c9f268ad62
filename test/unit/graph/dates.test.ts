import { describe, expect, it } from 'vitest';
import { parseIsoInstant } from '../../../src/graph/index.ts';

describe('parseIsoInstant', () => {
  it('reads dates and date-times as UTC instants', () => {
    expect(parseIsoInstant('1970-01-01')).toBe(0);
    expect(parseIsoInstant('2024-02-29T12:34:56.789Z')).toBe(Date.UTC(2024, 1, 29, 12, 34, 56, 789));
    expect(parseIsoInstant('2024-03-01T00:00')).toBe(Date.UTC(2024, 2, 1));
    expect(parseIsoInstant('2024-03-01T02:00:00+02:00')).toBe(Date.UTC(2024, 2, 1));
    expect(parseIsoInstant('2024-03-01T00:00:00-0130')).toBe(Date.UTC(2024, 2, 1, 1, 30));
    expect(parseIsoInstant('1969-12-31T23:59:59Z')).toBe(-1000);
    expect(parseIsoInstant('0001-01-01')).toBe(-62135596800000);
  });
  it('refuses impossible or malformed dates', () => {
    for (const s of ['2023-02-29', '2024-13-01', '2024-04-31', '2024-01-01T24:00', '2024-01-01T10:60', '2024-01-01T10:00:00+24:00', '2024-1-1', 'yesterday', '1700000000', '2024-01-01 10:00', '']) {
      expect(parseIsoInstant(s)).toBeUndefined();
    }
  });
  it('can require a time and an offset', () => {
    const opts = { requireTimeAndOffset: true };
    expect(parseIsoInstant('2025-01-31T09:00:00Z', opts)).toBe(Date.UTC(2025, 0, 31, 9));
    expect(parseIsoInstant('2025-01-31T09:00:00', opts)).toBeUndefined();
    expect(parseIsoInstant('2025-01-31', opts)).toBeUndefined();
  });
  it('reads lower-case t and z and keeps a fraction finer than a millisecond', () => {
    expect(parseIsoInstant('2024-05-01t09:30:00z')).toBe(Date.UTC(2024, 4, 1, 9, 30));
    expect(parseIsoInstant('1970-01-01T00:00:00.0005Z')).toBe(0.5);
  });
  it('can require an offset only when a time of day is given', () => {
    const opts = { requireOffsetWithTime: true };
    expect(parseIsoInstant('2025-01-31', opts)).toBe(Date.UTC(2025, 0, 31));
    expect(parseIsoInstant('2025-01-31T09:00+01:00', opts)).toBe(Date.UTC(2025, 0, 31, 8));
    expect(parseIsoInstant('2025-01-31T09:00', opts)).toBeUndefined();
  });
  it('can refuse instants PostgreSQL cannot store', () => {
    const opts = { storable: true };
    expect(parseIsoInstant('0001-01-01T00:00:00Z', opts)).toBe(-62135596800000);
    expect(parseIsoInstant('9999-12-31T23:59:59Z', opts)).toBe(Date.UTC(9999, 11, 31, 23, 59, 59));
    expect(parseIsoInstant('0001-01-01T00:00:00+00:01', opts)).toBeUndefined();
    expect(parseIsoInstant('9999-12-31T23:59:59-00:01', opts)).toBeUndefined();
  });
});
