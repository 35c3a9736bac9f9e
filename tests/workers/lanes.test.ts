/**
 * A regional object's alarm runs its queue in lanes: with `concurrency` 3, probes of different targets
 * run at once, two probes of one target never do, and every queued job is measured exactly once —
 * also while a finished probe's sample is still being written to D1 (a job counts as running until its
 * row is gone, so no other lane can take it again in that window).
 */
import { describe, expect, it } from 'vitest';
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { getConfig, type Job } from '../../workers/observatory/config.ts';
import type { RegionProber } from '../../workers/observatory/prober/region-prober.ts';
import { drain } from './drain.ts';

const REGION = 'apac';
// Ticks of their own (every 5 minutes on 2026-01-21), so no other test's samples share their keys.
const TICKS = [0, 1, 2].map((i) => Date.UTC(2026, 0, 21, 4, i * 5));
const TARGETS = ['ref-chat', 'ref-messages', 'ref-broken'];

type Measure = (job: Job, ...rest: unknown[]) => Promise<unknown>;

describe('probe lanes in one region', () => {
  it('run targets side by side, never one target twice at once, and each job exactly once', async () => {
    const config = getConfig();
    const saved = config.concurrency;
    config.concurrency = 3;
    const calls = new Map<string, number>();
    const runningByTarget = new Map<string, number>();
    let running = 0;
    let mostAtOnce = 0;
    let sameTargetOverlap = 0;
    const stub = env.REGION_PROBER.getByName(REGION);
    try {
      await runInDurableObject(stub, async (instance: RegionProber) => {
        // Wraps the real probe (real streams from the reference, real D1 writes after it) to watch the lanes.
        const prober = instance as unknown as { measure: Measure; env: Env };
        // Each sample's D1 write takes 300 ms: the window in which a finished job must still count as running.
        const db = prober.env.DB;
        const slowDb = new Proxy(db, {
          get: (target, key) =>
            key === 'batch'
              ? async (statements: D1PreparedStatement[]) => {
                  await new Promise((r) => setTimeout(r, 300));
                  return target.batch(statements);
                }
              : Reflect.get(target, key, target),
        });
        prober.env = new Proxy(prober.env, { get: (target, key) => (key === 'DB' ? slowDb : Reflect.get(target, key, target)) });
        const measure = prober.measure.bind(instance);
        prober.measure = async (job, ...rest) => {
          const key = `${job.tickId}|${job.target}|${job.variant}`;
          calls.set(key, (calls.get(key) ?? 0) + 1);
          const sameTarget = (runningByTarget.get(job.target) ?? 0) + 1;
          if (sameTarget > 1) sameTargetOverlap++;
          runningByTarget.set(job.target, sameTarget);
          mostAtOnce = Math.max(mostAtOnce, ++running);
          try {
            return await measure(job, ...rest);
          } finally {
            running--;
            runningByTarget.set(job.target, runningByTarget.get(job.target)! - 1);
          }
        };
        const jobs = TICKS.flatMap((tickId) => TARGETS.map((target) => ({ tickId, target, variant: 'tiny', backfill: false })));
        expect(await instance.enqueue(REGION, jobs)).toEqual({ queued: 9, skipped: 0 });
      });
      await drain([REGION]);
    } finally {
      config.concurrency = saved;
    }
    expect((await stub.status()).queued).toBe(0);
    expect(calls.size).toBe(9);
    expect(
      [...calls.values()].every((n) => n === 1),
      JSON.stringify([...calls]),
    ).toBe(true);
    expect(sameTargetOverlap).toBe(0);
    // The three targets' probes did overlap: the lanes ran side by side.
    expect(mostAtOnce).toBeGreaterThan(1);
    const stored = await env.DB.prepare(
      `SELECT COUNT(*) AS n FROM samples WHERE region = ? AND tick_id IN (${TICKS.map(() => '?').join(', ')})`,
    )
      .bind(REGION, ...TICKS)
      .first<{ n: number }>();
    expect(stored?.n).toBe(9);
  });

  it('give up a job whose alarm keeps stopping, as one internal sample, and go on with the rest', async () => {
    const region = 'enam';
    const poisoned = Date.UTC(2026, 0, 21, 5, 0);
    const healthy = Date.UTC(2026, 0, 21, 5, 5);
    const stub = env.REGION_PROBER.getByName(region);
    let calls = 0;
    await runInDurableObject(stub, async (instance: RegionProber, state: DurableObjectState) => {
      const prober = instance as unknown as { measure: Measure; alarm: (info?: AlarmInvocationInfo) => Promise<void> };
      const measure = prober.measure.bind(instance);
      // The poisoned probe takes its alarm down with it every time (as a runtime stopping it would).
      prober.measure = async (job, ...rest) => {
        if (job.tickId !== poisoned) return measure(job, ...rest);
        calls++;
        throw new Error('the runtime stopped this alarm');
      };
      await instance.enqueue(
        region,
        [poisoned, healthy].map((tickId) => ({ tickId, target: 'ref-chat', variant: 'tiny', backfill: false })),
      );
      await state.storage.deleteAlarm(); // this test plays the runtime's alarms (and retries) itself
      await expect(prober.alarm()).rejects.toThrow('stopped this alarm');
      await expect(prober.alarm({ isRetry: true, retryCount: 1, scheduledTime: Date.now() })).rejects.toThrow('stopped this alarm');
      await expect(prober.alarm({ isRetry: true, retryCount: 2, scheduledTime: Date.now() })).rejects.toThrow('stopped this alarm');
      await prober.alarm({ isRetry: true, retryCount: 3, scheduledTime: Date.now() });
    });
    expect(calls).toBe(3);
    await drain([region]);
    const rows = (
      await env.DB.prepare('SELECT tick_id, error, error_detail FROM samples WHERE region = ? AND tick_id IN (?, ?) ORDER BY tick_id')
        .bind(region, poisoned, healthy)
        .all<{ tick_id: number; error: string | null; error_detail: string | null }>()
    ).results;
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ tick_id: poisoned, error: 'internal' });
    expect(rows[0].error_detail).toContain('stopped 3 times');
    expect(rows[1]).toMatchObject({ tick_id: healthy, error: null });
  });

  it('make no more subrequests in one alarm than the plan allows, putting the rest off to the next', async () => {
    const region = 'weur';
    const stub = env.REGION_PROBER.getByName(region);
    const config = getConfig();
    const saved = { concurrency: config.concurrency, rttProbes: config.rttProbes };
    // Six probes of six requests each (36), the colo lookup, and 24 hours owed to the OTLP collector: over 50.
    Object.assign(config, { concurrency: 3, rttProbes: 5 });
    const tick = Date.UTC(2026, 0, 21, 6, 0);
    let fetches = 0;
    const realFetch = globalThis.fetch;
    try {
      await runInDurableObject(stub, async (instance: RegionProber, state: DurableObjectState) => {
        const jobs = ['ref-chat', 'ref-messages', 'ref-broken', 'ref-no-key'].flatMap((target) =>
          [0, 1].map((i) => ({ tickId: tick + i * 300_000, target, variant: 'tiny', backfill: false })),
        );
        await instance.enqueue(region, jobs.slice(0, 6));
        await state.storage.deleteAlarm();
        state.storage.sql.exec("DELETE FROM meta WHERE key = 'colo_checked_at'");
        for (let h = 0; h < 24; h++)
          state.storage.sql.exec('INSERT OR IGNORE INTO otlp_pending (hour) VALUES (?)', tick - (h + 1) * 3_600_000);
        globalThis.fetch = ((...args: Parameters<typeof fetch>) => {
          fetches++;
          return realFetch(...args);
        }) as typeof fetch;
        await (instance as unknown as { alarm: () => Promise<void> }).alarm();
        globalThis.fetch = realFetch;
        const owed = Number(state.storage.sql.exec('SELECT COUNT(*) AS n FROM otlp_pending').one().n);
        expect(fetches, `${fetches} fetches`).toBeLessThanOrEqual(50);
        expect(fetches).toBeGreaterThan(30);
        // What did not fit waits for the next alarm.
        expect(owed).toBeGreaterThan(0);
        state.storage.sql.exec('DELETE FROM otlp_pending');
      });
    } finally {
      globalThis.fetch = realFetch;
      Object.assign(config, saved);
    }
    await drain([region]);
  });
});
