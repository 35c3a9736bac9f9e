/** What the demo's first builds say about the parts still being measured. */
import { describe, expect, it } from 'vitest';
import { pendingFromEnv, pendingNote, readyIn } from '../../site/src/data/pending.ts';

describe('pending parts', () => {
  const built = '2026-12-01T09:30:00.000Z';
  it('reads SITE_PENDING, and refuses what the demo could not have meant', () => {
    expect(pendingFromEnv(undefined)).toEqual([]);
    expect(pendingFromEnv('[{"id":"incident","label":"the incident","ready_at":"2026-12-01T09:32:10Z"}]')).toEqual([
      { id: 'incident', label: 'the incident', ready_at: '2026-12-01T09:32:10.000Z' },
    ]);
    expect(() => pendingFromEnv('{}')).toThrow(/JSON array/);
    expect(() => pendingFromEnv('[{"id":"other","label":"x","ready_at":"2026-12-01T09:32:10Z"}]')).toThrow(/bad part/);
    expect(() => pendingFromEnv('[{"id":"incident","label":"x","ready_at":"soon"}]')).toThrow(/bad part/);
  });

  it('says when a part should land, in whole minutes after the build (at least one)', () => {
    const part = { id: 'backfill' as const, label: 'the history', ready_at: '2026-12-01T09:32:10.000Z' };
    expect(readyIn(part, built)).toBe('about 2 min after this build (09:32 UTC)');
    expect(readyIn({ ...part, ready_at: '2026-12-01T09:30:20.000Z' }, built)).toBe('about 1 min after this build (09:30 UTC)');
    expect(pendingNote({ generated_at: built, pending: [part] }, 'backfill')).toBe(
      'Being measured now: the history, ready about 2 min after this build (09:32 UTC). npm start rebuilds this page when it lands.',
    );
    expect(pendingNote({ generated_at: built, pending: [part] }, 'concurrency')).toBeNull();
    expect(pendingNote({ generated_at: built }, 'backfill')).toBeNull();
  });
});
