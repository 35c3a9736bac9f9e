/**
 * The Workers path (wrangler dev: workerd, the regional Durable Objects, local D1) against wire truth:
 * every target of the demo configuration probed, three at a time per region, against real recorded
 * streams replayed on loopback, the Messages API's with its headers held until the first token (the
 * first answer then arrives in one read with message_start and content_block_start). Each sample
 * stamps its first token never before it was sent and within half a token gap (200 ms) after: stamping the
 * wrong read, a sample matched to another target's request, or a clock read at the wrong moment is a
 * whole gap off. The tight figures are `npm run bench:truth`'s.
 */
import { describe, expect, it } from 'vitest';
import { recordedTargets, workersOnRecordings } from '../../../bench/truth-workers.ts';
import { config } from '../../../observatory.config.ts';

/** The replay gap between token events: a stamp on the wrong read is a whole gap off, far beyond what a busy machine delays. */
const GAP_MS = 200;
/**
 * workerd's clock has 1 ms resolution, and the error takes two readings of it (t0, stored as started_at, and
 * the first token's stamp): up to 2 ms early (seen: −1.36 ms beside two busy loops). Stamping a wrong read is 200 ms off.
 */
const CLOCK_SLACK_MS = 2;

describe('the Workers path on recorded streams', () => {
  it('stamps the first token of every target in every region, headers held or not', async () => {
    const results = await workersOnRecordings(1, () => {}, { prefillMs: 30, gapMs: GAP_MS });
    // Every target with a recording of its wire format (Bedrock has none: bench/truth-workers.ts UNRECORDED_APIS).
    expect(new Set(results.map((r) => `${r.region}|${r.target}`)).size).toBe(config.regions.length * recordedTargets().length);
    for (const r of results) {
      expect(r.error, `${r.region} ${r.target}`).toBeGreaterThan(-CLOCK_SLACK_MS);
      expect(r.error, `${r.region} ${r.target}`).toBeLessThan(GAP_MS / 2);
    }
  });
});
