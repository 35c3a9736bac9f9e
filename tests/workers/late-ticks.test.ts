/**
 * No tick lost (tick-heartbeat.ts): a region that the cron has reached expects the next tick, and
 * runs its own share of it, flagged late, once it is overdue; a tick that then arrives queues nothing
 * twice; a schedule silent for longer than MAX_LATE_TICKS ticks is taken as stopped, not replaced.
 */
import { describe, expect, it } from 'vitest';
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { runTick } from '../../workers/observatory/prober/scheduler.ts';
import { cadenceOf, heartbeatDue, heartbeatVerdict, MAX_LATE_TICKS } from '../../workers/observatory/prober/tick-heartbeat.ts';
import { alarmsUntil, drain } from './drain.ts';
import { config } from './test-config.ts';
import { fireCron } from './fire-cron.ts';

const REGIONS = config.regions.map((r) => r.code);
const cadence = cadenceOf(5);
const STEP = cadence.stepMs;
/** The environment of a deployed observatory: the heartbeat on (the test project turns it off for the other files). */
const live = { ...env, LATE_TICKS: 'on' } as Env;

const samplesOf = async (tickId: number) =>
  (
    await env.DB.prepare('SELECT region, target, late FROM samples WHERE tick_id = ? ORDER BY region, target')
      .bind(tickId)
      .all<{ region: string; target: string; late: number }>()
  ).results;

describe('the heartbeat, as a pure rule', () => {
  const t = 1_767_225_600_000; // on the grid
  it('waits until the grace after the next tick has passed', () => {
    expect(heartbeatVerdict(t + STEP + cadence.graceMs - 1, t, t, cadence)).toEqual({ kind: 'waiting' });
    expect(heartbeatVerdict(t + STEP + cadence.graceMs, t, t, cadence)).toEqual({ kind: 'late', tickId: t + STEP, missed: 0 });
    expect(heartbeatDue(t, cadence)).toBe(t + STEP + cadence.graceMs);
  });
  it('runs the newest overdue tick, counting the ones before it as missed, not running them', () => {
    expect(heartbeatVerdict(t + 3 * STEP + cadence.graceMs + 5, t, t, cadence)).toEqual({ kind: 'late', tickId: t + 3 * STEP, missed: 2 });
  });
  it('stops once the schedule has delivered nothing for more than MAX_LATE_TICKS ticks', () => {
    const lastLate = t + MAX_LATE_TICKS * STEP;
    expect(heartbeatVerdict(lastLate + cadence.graceMs, t + (MAX_LATE_TICKS - 1) * STEP, t, cadence)).toEqual({
      kind: 'late',
      tickId: lastLate,
      missed: 0,
    });
    expect(heartbeatVerdict(lastLate + STEP + cadence.graceMs, lastLate, t, cadence)).toEqual({
      kind: 'stopped',
      ticksWithoutDelivery: MAX_LATE_TICKS + 1,
    });
  });
});

describe('a tick that never came', () => {
  it('is run by each region, flagged late, once; the tick arriving afterwards queues nothing', async () => {
    // The last tick the cron delivered lies two ticks before the newest overdue one: that one never came.
    const overdue = Math.floor((Date.now() - cadence.graceMs) / STEP) * STEP;
    const delivered = overdue - 2 * STEP;
    await fireCron(delivered, { bindings: live });
    for (const region of REGIONS) {
      await alarmsUntil(region, async () => {
        const s = await env.REGION_PROBER.getByName(region).status();
        return s.queued === 0 && s.outbox === 0 && s.ticks !== null && s.ticks.newest > delivered;
      });
    }
    await drain(REGIONS);

    const late = (await env.DB.prepare('SELECT DISTINCT tick_id FROM samples WHERE late = 1').all<{ tick_id: number }>()).results.map(
      (r) => r.tick_id,
    );
    // The newest overdue tick when the regions looked (a grid step may have passed since the test read the clock).
    expect(late).toHaveLength(1);
    expect([overdue, overdue + STEP]).toContain(late[0]);
    const rows = await samplesOf(late[0]);
    expect(rows.every((r) => r.late === 1)).toBe(true);
    // Every region ran its whole share of it, as the cron would have queued it.
    const deliveredRows = await samplesOf(delivered);
    expect(deliveredRows.length).toBeGreaterThan(0);
    expect(deliveredRows.every((r) => r.late === 0)).toBe(true);
    expect(rows.map((r) => `${r.region}/${r.target}`)).toEqual(deliveredRows.map((r) => `${r.region}/${r.target}`));
    for (const region of REGIONS) {
      const s = await env.REGION_PROBER.getByName(region).status();
      expect(s.ticks, region).toMatchObject({
        newest: late[0],
        delivered,
        heartbeat: true,
        late: 1,
        missed: (late[0] - delivered) / STEP - 1,
      });
    }
    // The tick turns up after all (a cron firing very late): every job is already stored.
    // (ref-no-key, whose secret is missing, never stores a sample in weur: it alone is queued again, and skipped again.)
    const again = await runTick(live, late[0], { fromCron: true });
    for (const r of again.regions) expect(r, r.region).toMatchObject({ queued: r.region === 'weur' ? 1 : 0 });
    await drain(REGIONS);
    expect(await samplesOf(late[0])).toHaveLength(rows.length);
  });

  it('waits for the next tick while it is not yet overdue: its alarm is the next tick plus the grace', async () => {
    const now = Math.floor(Date.now() / STEP) * STEP;
    await fireCron(now, { bindings: live });
    await drain(REGIONS);
    const region = REGIONS[0];
    const stub = env.REGION_PROBER.getByName(region);
    await alarmsUntil(region, async () => (await stub.status()).pendingEvaluations === 0);
    const s = await stub.status();
    expect(s.ticks).toMatchObject({ newest: now, delivered: now, heartbeat: true });
    const alarm = await runInDurableObject(stub, (_i, state: DurableObjectState) => state.storage.getAlarm());
    expect(alarm).toBe(heartbeatDue(now, cadence));
    expect(await samplesOf(now + STEP)).toHaveLength(0);
  });
});

describe('a schedule that stopped', () => {
  it('is not replaced: after more than MAX_LATE_TICKS silent ticks the region waits for the next delivery', async () => {
    const stub = env.REGION_PROBER.getByName('stopped-schedule');
    const long = Math.floor(Date.now() / STEP) * STEP - (MAX_LATE_TICKS + 3) * STEP;
    await stub.enqueue('weur', [], { tickId: long, heartbeat: true });
    // Delivered with no work for this region, the heartbeat still waits for the next tick: here long overdue,
    // so its alarm (due at once, and perhaps run already) stops it.
    for (let i = 0; i < 40 && (await stub.status()).ticks?.heartbeat; i++) await runDurableObjectAlarm(stub);
    expect((await stub.status()).ticks).toMatchObject({ newest: long, heartbeat: false, late: 0 });
    expect(await runInDurableObject(stub, (_i, state: DurableObjectState) => state.storage.getAlarm())).toBeNull();
  });

  it('a POSTed tick does not arm it, and a cron with LATE_TICKS = "off" disarms it', async () => {
    const stub = env.REGION_PROBER.getByName('unarmed');
    const now = Math.floor(Date.now() / STEP) * STEP;
    await stub.enqueue('weur', [], { tickId: now });
    expect((await stub.status()).ticks).toMatchObject({ heartbeat: false });
    await stub.enqueue('weur', [], { tickId: now, heartbeat: true });
    await stub.enqueue('weur', [], { tickId: now });
    expect((await stub.status()).ticks).toMatchObject({ heartbeat: true });
    // The test project's own setting is "off": a cron tick through the scheduler disarms it.
    await runTick(env, now, { fromCron: true });
    expect((await env.REGION_PROBER.getByName('weur').status()).ticks).toMatchObject({ heartbeat: false });
  });
});
