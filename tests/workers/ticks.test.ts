/**
 * Scheduled ticks inside workerd: one sample per region × target, retried ticks without duplicates,
 * a failing target that stops nothing, a D1 outage that loses nothing, and no secret stored.
 */
import { describe, expect, it } from 'vitest';
import { runDurableObjectAlarm, runInDurableObject, SELF } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { alarmsUntil, drain } from './drain.ts';
import { expectConsoleErrors } from './console-errors.ts';
import { config } from './test-config.ts';
import { METHOD_VERSION } from '../../shared/constants.ts';
import { fireCron } from './fire-cron.ts';
import { tickJobs } from '../../workers/observatory/config.ts';
import type { RegionProber } from '../../workers/observatory/prober/region-prober.ts';

const REGIONS = config.regions.map((r) => r.code);
const TICK = 1_767_225_600_000; // 2026-01-01T00:00:00Z, on the 5-minute grid

async function count(where = '1 = 1', ...params: unknown[]): Promise<number> {
  const row = await env.DB.prepare(`SELECT COUNT(*) AS n FROM samples WHERE ${where}`)
    .bind(...params)
    .first<{ n: number }>();
  return row!.n;
}

describe('a scheduled tick', () => {
  it('writes one sample per region × target × variant, stamped with region and tick', async () => {
    await fireCron(TICK + 1_234); // a cron that fires late still belongs to its tick
    await drain(REGIONS);
    // ref-no-key is skipped (missing secret); 3 regions × 3 other targets × 1 variant
    expect(await count()).toBe(9);
    const rows = (await env.DB.prepare('SELECT * FROM samples ORDER BY region, target').all<Record<string, unknown>>()).results;
    for (const r of rows) {
      expect(r.tick_id).toBe(TICK);
      expect(REGIONS).toContain(r.region);
      expect(r.method_version).toBe(METHOD_VERSION);
    }
    const ok = rows.filter((r) => r.target !== 'ref-broken');
    for (const r of ok)
      expect(r).toMatchObject({
        error: null,
        status: 200,
        output_tokens: 6,
        tokens_exact: 1,
        split_source: 'server-timing.total',
        split_note: null,
        warm: 1,
      });
    for (const r of ok) expect(r.ttft_ms as number).toBeGreaterThan(0);
    // Each region probed its share in the tick's shuffled order, and each sample carries its place in it.
    for (const region of REGIONS) {
      const jobs = tickJobs(region, TICK);
      const mine = rows.filter((r) => r.region === region);
      for (const r of mine) expect(r.tick_position, `${region} ${r.target}`).toBe(jobs.find((j) => j.target === r.target)!.position);
      expect(new Set(mine.map((r) => r.tick_position)).size).toBe(mine.length);
    }
    expect(
      REGIONS.map((region) =>
        tickJobs(region, TICK)
          .map((j) => j.position)
          .join(','),
      ).some((o, _, all) => o !== all[0]),
    ).toBe(true);
  });

  it('a failing target is a sample with its error, and the others still run', async () => {
    const broken = (await env.DB.prepare("SELECT region, error, status FROM samples WHERE target = 'ref-broken'").all()).results;
    expect(broken).toHaveLength(3);
    for (const r of broken) expect(r).toMatchObject({ error: 'http', status: 500 });
  });

  it('a target whose secret is missing is skipped and reported, not stored', async () => {
    expect(await count("target = 'ref-no-key'")).toBe(0);
    expect((await env.REGION_PROBER.getByName('weur').status()).missingSecrets).toEqual(['ABSENT_KEY']);
  });

  it('a missing secret set since (a new .dev.vars, wrangler secret put) is no longer reported', async () => {
    const weur = env.REGION_PROBER.getByName('weur');
    const status = await runInDurableObject(weur, async (instance: RegionProber) => {
      const prober = instance as unknown as { env: Env };
      const real = prober.env;
      prober.env = { ...real, ABSENT_KEY: 'set-since' } as Env;
      try {
        return await instance.status();
      } finally {
        prober.env = real;
      }
    });
    expect(status.missingSecrets).toEqual([]);
    expect((await weur.status()).missingSecrets).toEqual(['ABSENT_KEY']);
  });

  it('a retried tick or a repeated alarm writes no duplicates', async () => {
    await fireCron(TICK + 60_000);
    await fireCron(TICK);
    for (const region of REGIONS) await runDurableObjectAlarm(env.REGION_PROBER.getByName(region));
    await drain(REGIONS);
    expect(await count()).toBe(9);
    const again = await env.REGION_PROBER.getByName('weur').enqueue('weur', [
      { tickId: TICK, target: 'ref-chat', variant: 'tiny', backfill: false },
    ]);
    expect(again).toEqual({ queued: 0, skipped: 1 });
  });

  it('no secret appears in any stored row', async () => {
    const rows = await env.DB.prepare('SELECT * FROM samples').all();
    expect(JSON.stringify(rows.results)).not.toContain(env.REFERENCE_KEY);
  });
});

describe('when D1 is unavailable', () => {
  it('keeps every sample in the regional object and writes it once D1 is back', async () => {
    const tick = TICK + 10 * 60_000;
    const logged = expectConsoleErrors(
      /could not check D1 for stored samples/,
      /D1 write failed, \d+ sample\(s\) kept for retry/,
      /rollup of hour .* failed, kept for retry/,
    );
    await env.DB.prepare('ALTER TABLE samples RENAME TO samples_away').run();
    try {
      await fireCron(tick);
      const stub = env.REGION_PROBER.getByName('enam');
      // An alarm that fired on its own may still be probing: run and wait until the queue is empty.
      await alarmsUntil('enam', async () => (await stub.status()).queued === 0);
      const held = await stub.status();
      expect(held.queued).toBe(0);
      expect(held.outbox).toBe(3);
      expect(held.lastFlushError).toMatch(/no such table/i);
      // Health says which duty failed, in the duty's own field, and what waits.
      const health = (await (await SELF.fetch('http://observatory/api/v1/health')).json()) as {
        duties: Array<{ region: string; waiting: Record<string, number>; errors: Record<string, string | null> }>;
      };
      const enam = health.duties.find((d) => d.region === 'enam')!;
      expect(enam.waiting.samples_unwritten).toBe(3);
      expect(enam.errors.sample_writes).toMatch(/^D1 write of samples failed, \d+ kept for retry: .*no such table/i);
      expect(enam.errors).toMatchObject({ rollups: null, status_evaluation: null, concurrency: null, otlp: null });
      // Every region said what happened, and how many samples it kept.
      expect(logged.filter((l) => l.includes('kept for retry')).length).toBeGreaterThanOrEqual(3);
    } finally {
      await env.DB.prepare('ALTER TABLE samples_away RENAME TO samples').run();
    }
    await drain(REGIONS);
    expect(await count('tick_id = ?', tick)).toBe(9);
    expect((await env.REGION_PROBER.getByName('enam').status()).lastFlushError).toBeNull();
  });
});

describe('retention', () => {
  it('the first tick after midnight deletes samples older than retentionDays and rollups older than rollupRetentionDays, and only those', async () => {
    const { applyRetention } = await import('../../workers/observatory/prober/scheduler.ts');
    const { upsertRollups, rollupsIn } = await import('../../workers/observatory/db/rollups.ts');
    const { oneProbeRollup } = await import('../helpers/one-probe-rollup.ts');
    const day = 86_400_000;
    const keep = TICK - (config.rollupRetentionDays - 1) * day;
    const drop = TICK - (config.rollupRetentionDays + 1) * day;
    const template = oneProbeRollup('weur', keep);
    await upsertRollups(env.DB, [template, { ...template, hour: drop }]);
    const old = TICK - (config.retentionDays + 1) * 86_400_000;
    await env.DB.prepare(`INSERT INTO samples (tick_id, region, target, prompt_variant, started_at, simulated, backfill, method_version, api, model, warm, tokens_exact, prompt_tokens, max_tokens, chunks, server_timings, timeline)
      SELECT ?, region, target, prompt_variant, started_at, simulated, backfill, method_version, api, model, warm, tokens_exact, prompt_tokens, max_tokens, chunks, server_timings, timeline FROM samples WHERE tick_id = ?`)
      .bind(old, TICK)
      .run();
    const before = await count();
    expect(await applyRetention(env, TICK + 300_000)).toBeNull(); // not the first tick of the day
    expect(await applyRetention(env, TICK)).toEqual({ samples: 9, rollups: 1, incidents: 0 });
    expect((await rollupsIn(env.DB, { fromHour: drop - day, toHour: TICK, methodVersion: METHOD_VERSION })).map((r) => r.hour)).toEqual([
      keep,
    ]);
    expect(await count()).toBe(before - 9);
    expect(await count('tick_id = ?', old)).toBe(0);
  });
});
