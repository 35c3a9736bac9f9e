/**
 * The CLI single-shot (a fresh process, `--n 1`, as a user runs it) against real recorded streams of
 * every wire format, replayed on loopback by a server that knows when it sent the first token: the
 * first probe of a process stamps the first token, never before it was sent and within half a token
 * gap after it. Stamping the wrong event is a whole gap off; the tight figures are `npm run bench:truth`'s.
 */
import { describe, expect, it } from 'vitest';
import { cliOnRecordings, timedRecordings } from '../../../bench/truth-recorded.ts';
import { apiIdOf } from '../../helpers/fixtures.ts';

/** The replay server's gap between events after the first token. */
const GAP_MS = 40;
const CLOCK_SLACK_MS = 1;

describe('first probe of a fresh CLI process, on recorded streams', () => {
  it('stamps the first token of one recording of every wire format', async () => {
    const oneEach = [...new Map(timedRecordings().map((f) => [apiIdOf(f), f])).values()];
    expect(oneEach.length).toBe(8);
    const results = await cliOnRecordings(1, oneEach, { prefillMs: 30, gapMs: GAP_MS });
    for (const r of results) {
      // Never before the server began to send it (after it returned, on a busy machine the server's own
      // stamp can lag its write), and within half a gap after.
      expect(r.afterWriteStart.cli[0], r.name).toBeGreaterThan(-CLOCK_SLACK_MS);
      expect(r.errors.cli[0], r.name).toBeLessThan(GAP_MS / 2);
    }
  });
});
