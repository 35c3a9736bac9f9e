/**
 * Concurrency probes inside workerd: on their own cron each region runs 1, 4, 8 and 16 simultaneous
 * streams per opted-in target, split over runner objects and started together; the samples are
 * stored apart from the regular ones (never in percentiles, rollups or status); a 429 stops the
 * escalation; a retried run writes nothing twice; the API reports each level.
 */
import { describe, expect, it } from 'vitest';
import { createExecutionContext, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import worker from '../../workers/observatory/index.ts';
import { config } from './test-config.ts';
import type { LevelReport } from '../../shared/bursts/level-report.ts';
import type { RegionProber } from '../../workers/observatory/prober/region-prober.ts';
import { fireCron } from './fire-cron.ts';

const REGIONS = config.regions.map((r) => r.code);
const RUN = Date.UTC(2026, 0, 5, 10, 2); // 10:02, the bursts' minute

/** Runs (or waits for) each region's alarms until its runs are done: bounded at 60 s, as a run takes a few seconds. */
async function runAll(): Promise<void> {
  for (const region of REGIONS) {
    const stub = env.REGION_PROBER.getByName(region);
    for (let i = 0; i < 600 && (await stub.status()).pendingBursts > 0; i++) {
      await runDurableObjectAlarm(stub);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await stub.status()).pendingBursts, `${region}: runs still pending after 60 s`).toBe(0);
  }
}

type Row = {
  region: string;
  target: string;
  burst_id: string;
  burst_level: number;
  burst_stream: number;
  start_offset_ms: number;
  status: number | null;
  error: string | null;
  server_ms: number | null;
};
const rows = async () =>
  (
    await env.DB.prepare(
      'SELECT region, target, burst_id, burst_level, burst_stream, start_offset_ms, status, error, server_ms FROM burst_samples ORDER BY region, target, burst_level, burst_stream',
    ).all<Row>()
  ).results;

describe('concurrency probes', () => {
  it('run every level of every opted-in target in every region, on their own cron, with the streams started together', async () => {
    await fireCron(RUN + 3_000, { cron: config.bursts!.schedule });
    await runAll();
    const all = await rows();
    for (const region of REGIONS) {
      const messages = all.filter((r) => r.region === region && r.target === 'ref-messages');
      // 1 + 4 + 8 + 16 streams, each level one burst id, streams numbered 0…level−1.
      expect(messages.map((r) => r.burst_level)).toEqual([1, ...Array(4).fill(4), ...Array(8).fill(8), ...Array(16).fill(16)]);
      for (const level of [1, 4, 8, 16]) {
        const mine = messages.filter((r) => r.burst_level === level);
        expect(new Set(mine.map((r) => r.burst_id)).size).toBe(1);
        expect(mine.map((r) => r.burst_stream)).toEqual(Array.from({ length: level }, (_, i) => i));
        expect(Math.min(...mine.map((r) => r.start_offset_ms))).toBe(0);
        // Started together: a spread that a definition error (absolute times, or levels run one stream after another) would break.
        expect(Math.max(...mine.map((r) => r.start_offset_ms)), `${region} level ${level}`).toBeLessThan(1_000);
      }
      expect(messages.every((r) => r.error === null)).toBe(true);
    }
    // Nothing reaches the regular samples, hence no percentile, rollup or status sees them.
    expect((await env.DB.prepare('SELECT COUNT(*) AS n FROM samples').first<{ n: number }>())!.n).toBe(0);
  });

  it("stop a target's escalation at a rate limit (429)", async () => {
    const chat = (await rows()).filter((r) => r.target === 'ref-chat');
    for (const region of REGIONS) {
      const mine = chat.filter((r) => r.region === region);
      // Its replicas accept 4 at once: levels 1 and 4 pass; at level 8 the streams beyond 4 still in flight get 429
      // (up to four: these streams are short, a slot frees as one ends), and level 16 is never run.
      expect(mine.filter((r) => r.burst_level <= 4).every((r) => r.error === null)).toBe(true);
      const limited = mine.filter((r) => r.burst_level === 8 && r.status === 429).length;
      expect(limited, region).toBeGreaterThanOrEqual(1);
      expect(limited, region).toBeLessThanOrEqual(4);
      expect(mine.filter((r) => r.burst_level === 16)).toHaveLength(0);
    }
  });

  it('a retried run measures and writes nothing twice', async () => {
    const before = (await rows()).length;
    await fireCron(RUN + 45_000, { cron: config.bursts!.schedule });
    for (const region of REGIONS) expect((await env.REGION_PROBER.getByName(region).status()).pendingBursts, region).toBe(0);
    await runAll();
    expect((await rows()).length).toBe(before);
  });

  it("keeps a run's streams in the outbox while D1 refuses them, and gives up a run that keeps failing", async () => {
    const region = 'apac';
    const stub = env.REGION_PROBER.getByName(region);
    const tick = RUN + 7 * 86_400_000;
    const stored = async () =>
      Number(
        (await env.DB.prepare('SELECT COUNT(*) AS n FROM burst_samples WHERE tick_id = ? AND region = ?')
          .bind(tick, region)
          .first<{ n: number }>())!.n,
      );
    let refuse = true;
    let failRunners = false;
    await runInDurableObject(stub, async (instance: RegionProber, state: DurableObjectState) => {
      const prober = instance as unknown as { env: Env };
      const real = prober.env;
      // D1 refuses burst writes while `refuse`; the runners cannot be reached while `failRunners`.
      const db = new Proxy(real.DB, {
        get: (t, k) =>
          k === 'batch'
            ? (statements: D1PreparedStatement[]) => (refuse ? Promise.reject(new Error('D1 is down')) : t.batch(statements))
            : Reflect.get(t, k, t),
      });
      const runners = new Proxy(real.BURST_RUNNER, {
        get: (t, k) =>
          k === 'getByName'
            ? (...a: Parameters<typeof t.getByName>) => {
                if (failRunners) throw new Error('no runner');
                return t.getByName(...a);
              }
            : Reflect.get(t, k, t),
      });
      prober.env = new Proxy(real, { get: (t, k) => (k === 'DB' ? db : k === 'BURST_RUNNER' ? runners : Reflect.get(t, k, t)) });
      await instance.enqueueBursts(region, tick);
      await state.storage.deleteAlarm();
      const alarm = (instance as unknown as { alarm: () => Promise<void> }).alarm.bind(instance);
      // The first run's levels are measured, every write refused: its streams wait in the outbox, the run is done,
      // and the next run waits until D1 takes writes again.
      await alarm();
      expect(await instance.status()).toMatchObject({ pendingBursts: 1 });
      expect((await instance.status()).outbox).toBeGreaterThan(0);
      await alarm();
      expect(await instance.status()).toMatchObject({ pendingBursts: 1 });
      refuse = false;
      for (let i = 0; i < 5 && ((await instance.status()).pendingBursts > 0 || (await instance.status()).outbox > 0); i++) await alarm();
      expect(await instance.status()).toMatchObject({ pendingBursts: 0, outbox: 0 });
      // A run that fails itself: tried MAX_PROBE_ATTEMPTS times over as many alarms, then given up.
      failRunners = true;
      await instance.enqueueBursts(region, tick + 3_600_000);
      await state.storage.deleteAlarm();
      let alarms = 0;
      for (; alarms < 10 && (await instance.status()).pendingBursts > 0; alarms++) await alarm();
      expect((await instance.status()).pendingBursts).toBe(0);
      expect(alarms).toBe(2 * 3); // two opted-in targets, three runs each
      prober.env = real;
    });
    // Every measured stream written once: the outbox, then nothing twice.
    const written = await stored();
    expect(written).toBeGreaterThan(0);
    const distinct = Number(
      (await env.DB.prepare(
        'SELECT COUNT(*) AS n FROM (SELECT DISTINCT target, burst_level, burst_stream FROM burst_samples WHERE tick_id = ? AND region = ?)',
      )
        .bind(tick, region)
        .first<{ n: number }>())!.n,
    );
    expect(distinct).toBe(written);
    // This run is not one of the runs the report below describes.
    await env.DB.prepare('DELETE FROM burst_samples WHERE tick_id >= ?').bind(tick).run();
  });

  it('reports each level: TTFT, the queueing over one stream alone, decode per stream, errors, rate limits and start spread', async () => {
    // With the read token: the live report of what D1 holds now (an anonymous one may come from a view built before
    // the run deleted above; tests/workers/timeline-views.test.ts holds the view to the live report).
    const live = (url: string) => new Request(url, { headers: { authorization: `Bearer ${env.READ_TOKEN}`, 'cache-control': 'no-cache' } });
    const body = (await (await worker.fetch(live('http://observatory/api/v1/bursts?runs=6'), env, createExecutionContext())).json()) as {
      runs: string[];
      reports: Array<{ region: string; target: string; levels: LevelReport[] }>;
    };
    expect(body.runs).toEqual([new Date(RUN).toISOString()]);
    const messages = body.reports.find((r) => r.region === 'weur' && r.target === 'ref-messages')!;
    expect(messages.levels.map((l) => [l.level, l.streams, l.ok, l.errors, l.rate_limited])).toEqual([
      [1, 1, 1, 0, 0],
      [4, 4, 4, 0, 0],
      [8, 8, 8, 0, 0],
      [16, 16, 16, 0, 0],
    ]);
    const [one, , , sixteen] = messages.levels;
    expect(one.server_growth_ms).toBe(0);
    // Every level reports its growth. Its size, and even its sign, depends on how closely a busy machine starts the
    // streams (-8 ms seen at level 16 on a fresh clone): the queueing itself is asserted against the reference's
    // model in tests/reference/queueing.timing.test.ts; here the figure is checked against its definition below.
    for (const l of messages.levels) expect(typeof l.server_growth_ms, `level ${l.level}`).toBe('number');
    // Each level's figures are those of its own streams (recomputed here from the stored rows). Decode speed may be
    // unobservable for a stream whose few tokens arrived in one read (a busy machine): then it is null, never 0.
    const streams = (
      (await (
        await worker.fetch(
          live('http://observatory/api/v1/bursts?runs=6&streams=true&region=weur&target=ref-messages'),
          env,
          createExecutionContext(),
        )
      ).json()) as {
        streams: Array<{ burst_level: number; error: string | null; ttft_ms: number; decode_tps: number | null; start_offset_ms: number }>;
      }
    ).streams;
    const median = (v: number[]) => {
      const s = [...v].sort((a, b) => a - b);
      return s.length === 0 ? null : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    };
    const serverMedian = (level: number) =>
      median(
        streams.filter((s) => s.burst_level === level && s.error === null).map((s) => (s as unknown as { server_ms: number }).server_ms),
      )!;
    // The growth is its definition: the level's median server time over the level-1 stream's.
    expect(sixteen.server_growth_ms!).toBeCloseTo(serverMedian(16) - serverMedian(1), 6);
    for (const l of messages.levels) {
      const mine = streams.filter((s) => s.burst_level === l.level && s.error === null);
      expect(l.ttft_p50).toBeGreaterThan(0);
      expect(l.ttft_p50).toBeCloseTo(median(mine.map((s) => s.ttft_ms))!, 9);
      const tps = mine.map((s) => s.decode_tps).filter((v): v is number => v !== null);
      const want = median(tps);
      if (want === null) expect(l.decode_tps_p50).toBeNull();
      else expect(l.decode_tps_p50).toBeCloseTo(want, 9);
      expect(l.decode_tps_min).toBe(tps.length ? Math.min(...tps) : null);
      expect(l.start_spread_ms_max).toBe(Math.max(...streams.filter((s) => s.burst_level === l.level).map((s) => s.start_offset_ms)));
    }
    // Any figure may be null on a busy machine (decode speed unobservable): printed as such, never a crash.
    const f = (v: number | null, digits: number) => (v === null ? 'null' : v.toFixed(digits));
    console.log(
      `weur ref-messages: ${messages.levels.map((l) => `level ${l.level}: TTFT p50 ${f(l.ttft_p50, 1)} ms, server +${f(l.server_growth_ms, 1)} ms, decode p50 ${f(l.decode_tps_p50, 0)} tok/s, start spread ${f(l.start_spread_ms_max, 1)} ms`).join('; ')}`,
    );
    const chat = body.reports.find((r) => r.region === 'weur' && r.target === 'ref-chat')!;
    expect(chat.levels.map((l) => l.level)).toEqual([1, 4, 8]);
    expect(chat.levels.map((l) => l.rate_limited > 0)).toEqual([false, false, true]);
  });
});
