/** npm start's progress: one updating line per phase on a terminal, plain final lines elsewhere. */
import { describe, expect, it } from 'vitest';
import { Progress, duration, progressLine } from '../../scripts/progress.ts';

function recorder(tty: boolean) {
  let t = 0;
  const out: string[] = [];
  const p = new Progress({ tty, write: (s) => out.push(s), now: () => t, plainEveryMs: 10_000 });
  return { p, out, text: () => out.join(''), advance: (ms: number) => (t += ms) };
}

describe('progress', () => {
  it('gives a count, a rate and the time left', () => {
    expect(progressLine('backfill', 0, 300, 'samples', 0)).toBe('backfill: 0/300 samples');
    expect(progressLine('backfill', 100, 300, 'samples', 20_000)).toBe('backfill: 100/300 samples · 5.0/s · about 40 s left');
    expect(progressLine('backfill', 299, 300, 'samples', 59_800)).toBe('backfill: 299/300 samples · 5.0/s · finishing');
    expect(progressLine('backfill', 300, 300, 'samples', 60_000)).toBe('backfill: 300/300 samples · 5.0/s');
    expect([duration(400), duration(59_400), duration(65_000), duration(600_000)]).toEqual(['0 s', '59 s', '1 min 05 s', '10 min 00 s']);
  });

  it('updates one line in place on a terminal, and prints other lines above it', () => {
    const r = recorder(true);
    const phase = r.p.phase('backfill', 10, 'samples');
    r.advance(1_000);
    phase.update(5);
    r.p.say('• [sink] a notification');
    r.advance(1_000);
    phase.update(10);
    phase.finish('10 samples');
    // No newline until the phase ends, except for the line said in between, which the live line follows again.
    expect(r.text()).toBe(
      '\r\x1b[2K• backfill: 0/10 samples' +
        '\r\x1b[2K• backfill: 5/10 samples · 5.0/s · about 1 s left' +
        '\r\x1b[2K• [sink] a notification\n• backfill: 5/10 samples · 5.0/s · about 1 s left' +
        '\r\x1b[2K• backfill: 10/10 samples · 5.0/s' +
        '\r\x1b[2K• backfill: 10 samples (2 s)\n',
    );
  });

  it('prints plain, final lines elsewhere: where a phase starts, at most every 10 s, and where it ends', () => {
    const r = recorder(false);
    const phase = r.p.phase('backfill', 100, 'samples');
    for (let i = 1; i <= 30; i++) {
      r.advance(1_000);
      phase.update(i * 3);
    }
    phase.finish('100 samples');
    const lines = r.text().split('\n').filter(Boolean);
    expect(r.text()).not.toMatch(/[\r\x1b]/);
    expect(lines).toEqual([
      '• backfill: 0/100 samples',
      '• backfill: 30/100 samples · 3.0/s · about 23 s left',
      '• backfill: 60/100 samples · 3.0/s · about 13 s left',
      '• backfill: 90/100 samples · 3.0/s · about 3 s left',
      '• backfill: 100 samples (30 s)',
    ]);
  });
});

describe('progress interrupted', () => {
  it('ends a live line on a terminal before an error, and prints nothing elsewhere', () => {
    const tty = recorder(true);
    tty.p.phase('backfill', 10, 'samples');
    tty.p.interrupt();
    expect(tty.text()).toBe('\r\x1b[2K• backfill: 0/10 samples\n');
    const plain = recorder(false);
    plain.p.interrupt();
    expect(plain.text()).toBe('');
  });
});
