/**
 * The status keeper judges a tick once every region due at it has reported, or at its deadline, whatever order the
 * regions report in (docs/STATUS.md, "When a tick is judged"). The same ten ticks of findings (apac degraded, then
 * down, then well again: a regional incident that opens, escalates and resolves) are fed to a fresh keeper, the real
 * Durable Object over its RPC, in every order of the regions, tick by tick and region by region (one region's every
 * tick before the next's: the order that lost the incident on a fresh database), and with each region delayed up to
 * and past the deadline. Time passing is the test's own clock: a deadline passes when the test makes it due and runs
 * the keeper's alarm. Every run must give the same incidents, notifications and history, apart from lateness flags.
 */
import { describe, expect, it } from 'vitest';
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { config } from './test-config.ts';
import { reportDeadlineMs } from '../../shared/status/judgement.ts';
import type { Finding, Level, RuleResult } from '../../shared/status/evaluate.ts';
import type { IncidentEvent } from '../../shared/status/incidents.ts';

const MINUTE = 60_000;
const TICK_MS = 5 * MINUTE;
const REGIONS = config.regions.map((r) => r.code);
const TARGET = 'ref-messages';
const VARIANT = 'tiny';
/** 6 April 2026, a day no other test probes. */
const T0 = Date.UTC(2026, 3, 6, 10, 0);
const TICKS = Array.from({ length: 10 }, (_, k) => T0 + k * TICK_MS);
/** What the rules found of apac at each tick; every other region is operational throughout. */
const APAC: Level[] = [
  'operational',
  'operational',
  'operational',
  'degraded',
  'degraded',
  'down',
  'down',
  'operational',
  'operational',
  'operational',
];
const DEADLINE_MS = reportDeadlineMs(5);

function rule(name: RuleResult['rule'], fired: boolean, note: string): RuleResult {
  return { rule: name, outcome: fired ? 'fired' : 'ok', n: 3, value: null, estimate: null, threshold: null, baseline: null, note };
}

function finding(region: string, k: number): Finding {
  const level = region === 'apac' ? APAC[k] : 'operational';
  return {
    tick_id: TICKS[k],
    level,
    rules: [
      rule('down', level === 'down', level === 'down' ? 'the last 3 probes failed (http)' : '0 of the last 3 probes failed'),
      rule('ttft', level === 'degraded', level === 'degraded' ? 'TTFT p99 ≥ 2,900 ms against 1,650 ms' : 'TTFT within its limit'),
    ],
    shift: null,
    baseline: null,
    sample: { ttft_ms: level === 'down' ? null : level === 'degraded' ? 2_900 : 400, error: level === 'down' ? 'http' : null },
  };
}

type Arrival = { at: number; region: string; k: number };

/** Every ordering of the regions. */
function permutations<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [[...xs]];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]));
}

/** The runs: arrivals on the test's clock (ms after the first tick's first report). */
function runs(): Array<{ name: string; arrivals: Arrival[]; late: boolean }> {
  const out: Array<{ name: string; arrivals: Arrival[]; late: boolean }> = [];
  for (const order of permutations(REGIONS)) {
    // Tick by tick, the regions in this order (a second apart: no deadline passes).
    out.push({
      name: `tick by tick: ${order.join(', ')}`,
      arrivals: TICKS.flatMap((_, k) => order.map((region, i) => ({ at: k * 1_000 * REGIONS.length + i * 1_000, region, k }))),
      late: false,
    });
    // Region by region: every tick of the first region, then of the second (the fresh database's burst).
    out.push({
      name: `region by region: ${order.join(', ')}`,
      arrivals: order.flatMap((region, i) => TICKS.map((_, k) => ({ at: (i * TICKS.length + k) * 1_000, region, k }))),
      late: false,
    });
  }
  // One region a tick behind the others by a delay: up to the deadline, just past it, and far past it.
  for (const delayed of REGIONS)
    for (const [delay, late] of [
      [DEADLINE_MS - MINUTE, false],
      [DEADLINE_MS + MINUTE, true],
      [3 * DEADLINE_MS + MINUTE, true],
    ] as const)
      out.push({
        name: `${delayed} ${delay / MINUTE} min behind`,
        arrivals: TICKS.flatMap((_, k) =>
          REGIONS.map((region, i) => ({ at: k * TICK_MS + (region === delayed ? delay : i * 1_000), region, k })),
        ),
        late,
      });
  return out;
}

const keeperOf = (name: string) => env.STATUS_KEEPER.getByName(`order-${name}`);

/**
 * The keeper's alarm, once it is set: while an alarm the keeper set for itself (to write an incident to D1) is
 * running, getAlarm answers null until that run has set the next one. Bounded; null if none is ever set.
 */
async function alarmOf(name: string): Promise<number | null> {
  for (let i = 0; i < ALARM_POLLS; i++) {
    const at = await runInDurableObject(keeperOf(name), (_, state) => state.storage.getAlarm());
    if (at !== null) return at;
    await new Promise((r) => setTimeout(r, ALARM_POLL_MS));
  }
  return null;
}
const ALARM_POLLS = 50;
const ALARM_POLL_MS = 20;

/** Makes the deadline of these ticks pass (the test's clock) and runs the keeper's alarm, as time passing would. */
async function passDeadlines(name: string, ticks: number[]): Promise<void> {
  if (ticks.length === 0) return;
  const stub = keeperOf(name);
  const marks = ticks.map(() => '?').join(', ');
  const waiting = await runInDurableObject(stub, (_, state) =>
    state.storage.sql
      .exec<{ deadline_at: number }>(
        `SELECT deadline_at FROM waiting WHERE target = ? AND variant = ? AND tick IN (${marks})`,
        TARGET,
        VARIANT,
        ...ticks,
      )
      .toArray(),
  );
  if (waiting.length === 0) return;
  // A tick still waiting has the keeper's alarm set, no later than its deadline: the keeper would judge it without the test.
  const alarm = await alarmOf(name);
  expect(alarm, `${name}: no alarm while ticks wait`).not.toBeNull();
  expect(alarm!).toBeLessThanOrEqual(Math.min(...waiting.map((w) => w.deadline_at)));
  await runInDurableObject(stub, (_, state) => {
    state.storage.sql.exec(`UPDATE waiting SET deadline_at = 0 WHERE tick IN (${marks})`, ...ticks);
  });
  // The keeper's alarm judges them (or already has, when one it set for itself ran after the update).
  await alarmOf(name);
  await runDurableObjectAlarm(stub);
  const left = await runInDurableObject(
    stub,
    (_, state) => state.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM waiting WHERE tick IN (${marks})`, ...ticks).one().n,
  );
  expect(left, `${name}: ticks past their deadline still waiting`).toBe(0);
}

/** Feeds one run's arrivals in their order, passing each tick's deadline when the test's clock reaches it. */
async function feed(name: string, arrivals: Arrival[]): Promise<void> {
  const sorted = [...arrivals].sort((a, b) => a.at - b.at);
  const first = new Map<number, number>();
  for (const a of sorted) if (!first.has(a.k)) first.set(a.k, a.at);
  const passed = new Set<number>();
  const due = (at: number) => [...first].filter(([k, t]) => !passed.has(k) && t + DEADLINE_MS <= at).map(([k]) => k);
  for (const a of sorted) {
    const ks = due(a.at);
    for (const k of ks) passed.add(k);
    await passDeadlines(
      name,
      ks.map((k) => TICKS[k]),
    );
    expect(await keeperOf(name).report(a.region, [{ target: TARGET, variant: VARIANT, finding: finding(a.region, a.k) }])).toBe(1);
  }
  await passDeadlines(
    name,
    TICKS.filter((_, k) => !passed.has(k)),
  );
  // The alarm writes the incidents and the history to D1 (the ticks' hours are long over) until nothing is left.
  for (let i = 0; i < 10; i++) {
    const s = await keeperOf(name).status();
    const history = await runInDurableObject(
      keeperOf(name),
      (_, state) => state.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM history WHERE unwritten = 1').one().n,
    );
    if (s.incidents_unwritten === 0 && history === 0) return;
    await runDurableObjectAlarm(keeperOf(name));
  }
  throw new Error(`run ${name}: the keeper still has incidents or history to write`);
}

/** What a run left: its incidents (D1), the messages it queued (the keeper's outbox) and its history (D1). */
async function outcome(name: string) {
  const incidents = (
    await env.DB.prepare('SELECT * FROM incidents WHERE target = ? AND opened_at >= ? ORDER BY id').bind(TARGET, T0).all()
  ).results.map((r) => ({ ...r, timeline: JSON.parse(String(r.timeline)) as IncidentEvent[], points: JSON.parse(String(r.points)) }));
  const messages = await runInDurableObject(keeperOf(name), (_, state) =>
    state.storage.sql
      .exec<{ id: string; incident_id: string; channel: string; message: string }>(
        'SELECT id, incident_id, channel, message FROM deliveries ORDER BY n',
      )
      .toArray()
      .map((d) => ({ ...d, message: JSON.parse(d.message) })),
  );
  const rows = (
    await env.DB.prepare('SELECT * FROM status_hours WHERE target = ? AND hour >= ? ORDER BY hour, region').bind(TARGET, T0).all()
  ).results;
  const late = rows.reduce((n, r) => n + Number(r.late), 0);
  const history = rows.map(({ late: _, ...r }) => r);
  // The next run starts from an empty D1 for this target (its keeper is a fresh object).
  await env.DB.batch([
    env.DB.prepare('DELETE FROM incidents WHERE target = ?').bind(TARGET),
    env.DB.prepare('DELETE FROM status_hours WHERE target = ?').bind(TARGET),
    env.DB.prepare('DELETE FROM status_days WHERE target = ?').bind(TARGET),
  ]);
  return { incidents, messages, history, late };
}

describe('the keeper judges each tick the same, whatever order and delay the regions report in', () => {
  const all = runs();
  let reference: Awaited<ReturnType<typeof outcome>> | null = null;

  it('one regional incident, opened, escalated and resolved, with its messages', async () => {
    await feed('reference', all[0].arrivals);
    reference = await outcome('reference');
    expect(reference.incidents).toHaveLength(1);
    const [incident] = reference.incidents;
    expect(incident).toMatchObject({ status: 'resolved', scope: 'regional', severity: 'down', regions: '["apac"]' });
    expect(incident.timeline.map((e) => [e.kind, e.severity, e.at])).toEqual([
      ['opened', 'degraded', TICKS[3]],
      ['escalated', 'down', TICKS[5]],
      ['resolved', 'down', TICKS[8]],
    ]);
    expect(reference.messages.filter((m) => m.channel === 'hook').map((m) => m.message.type)).toEqual([
      'incident.opened',
      'incident.escalated',
      'incident.resolved',
    ]);
    expect(reference.late).toBe(0);
  });

  // A few runs a test: each feeds 30 reports and runs the keeper's alarm at every deadline.
  const CHUNK = 5;
  for (let c = 1; c < all.length; c += CHUNK) {
    const chunk = all.slice(c, c + CHUNK);
    it(`the same in ${chunk.map((r) => r.name).join('; ')}`, async () => {
      expect(reference).not.toBeNull();
      for (const run of chunk) {
        const name = `${c}-${run.name.replace(/[^a-z0-9]+/gi, '-')}`;
        await feed(name, run.arrivals);
        const got = await outcome(name);
        expect(got.incidents, run.name).toEqual(reference!.incidents);
        expect(got.messages, run.name).toEqual(reference!.messages);
        expect(got.history, run.name).toEqual(reference!.history);
        // Past the deadline the delayed region's reports are late, and counted so; up to it, none is.
        if (run.late) expect(got.late, run.name).toBeGreaterThan(0);
        else expect(got.late, run.name).toBe(0);
      }
    });
  }
});
