/**
 * The status rules on synthetic windows with known answers: each rule fires on its definition and
 * not on a single outlier, says "not enough data" below its minimum, and a slowdown names the part
 * of TTFT that moved; hysteresis; the target as a whole only when half its regions agree; one
 * incident per outage, stepped per tick.
 */
import { describe, expect, it } from 'vitest';
import { evaluate, type Baseline, type WindowSample } from '../../../shared/status/evaluate.ts';
import { DEFAULT_STATUS_RULES as RULES, resolveStatusRules, rulesForSpread } from '../../../shared/status/rules.ts';
import { nextPairState, pairAt, targetStatus, type PairState } from '../../../shared/status/pair-state.ts';
import { stepIncident, type Incident } from '../../../shared/status/incidents.ts';
import { chooseBaselines } from '../../../shared/status/baseline.ts';
import { rollUp } from '../../../shared/rollup/rollup.ts';
import { validateConfig, type ConfigError } from '../../../shared/config/validate.ts';
import { config as demo } from '../../../observatory.config.ts';

const MIN = 60_000;
const T = Date.UTC(2026, 5, 1, 12, 0);
const BASE: Baseline = { source: 'trailing-24h', n: 200, ttft_p99: 400, decode_p50: 100, network_p50: 50, server_p50: 150 };
const ok = (k: number, over: Partial<WindowSample> = {}): WindowSample => ({
  tick_id: T - k * 5 * MIN,
  error: null,
  ttft_ms: 200,
  itl_p99_ms: 20,
  decode_tps: 100,
  network_ms: 50,
  server_ms: 150,
  ...over,
});
const failed = (k: number): WindowSample => ({
  tick_id: T - k * 5 * MIN,
  error: 'http',
  ttft_ms: null,
  itl_p99_ms: null,
  decode_tps: null,
  network_ms: null,
  server_ms: null,
});
const rule = (f: ReturnType<typeof evaluate>, name: string) => f.rules.find((r) => r.rule === name)!;

describe('the rules', () => {
  it('TTFT: fires when the whole p99 interval is above 1.5× the baseline, never on one outlier', () => {
    const oneSlow = evaluate([ok(2), ok(1), ok(0, { ttft_ms: 5_000 })], T, BASE, RULES);
    expect(rule(oneSlow, 'ttft').outcome).toBe('ok');
    const twoSlow = evaluate([ok(2), ok(1, { ttft_ms: 900, server_ms: 850 }), ok(0, { ttft_ms: 900, server_ms: 850 })], T, BASE, RULES);
    expect(rule(twoSlow, 'ttft')).toMatchObject({ outcome: 'fired', value: 900, threshold: 600, baseline: 400, n: 3 });
    expect(twoSlow.level).toBe('degraded');
    // The split says which part moved: the server's 700 ms, not the network.
    expect(twoSlow.shift).toEqual({ network_delta_ms: 0, server_delta_ms: 700, moved: 'server' });
    const netSlow = evaluate([ok(2, { network_ms: 900 }), ok(1, { network_ms: 900 }), ok(0)], T, BASE, RULES);
    expect(netSlow.shift?.moved).toBe('network');
  });

  it('says "not enough data" below its minimum, or without a baseline, and cannot flip anything then', () => {
    const few = evaluate([ok(1, { ttft_ms: 9_000 }), ok(0, { ttft_ms: 9_000 })], T, BASE, RULES);
    expect(rule(few, 'ttft').outcome).toBe('insufficient');
    expect(evaluate([ok(2), ok(1), ok(0)], T, null, RULES).rules.find((r) => r.rule === 'ttft')!.note).toBe('no baseline yet');
    expect(rule(evaluate([ok(2), ok(1), ok(0)], T, { ...BASE, n: 5 }, RULES), 'ttft').note).toMatch(/baseline has 5 of the 12 samples/);
    const lone = evaluate([failed(0)], T, BASE, RULES);
    expect(lone.level).toBeNull();
    const prev: PairState = {
      region: 'r',
      target: 't',
      variant: 'v',
      state: 'operational',
      since_tick: T - HOUR,
      better_streak: 0,
      last_tick: T - 5 * MIN,
      finding: lone,
    };
    expect(nextPairState(prev, prev, lone, RULES)?.state).toBe('operational');
  });

  it('errors: above the rate over the window; down: N failures in a row', () => {
    expect(rule(evaluate([ok(2), ok(1), failed(0)], T, BASE, RULES), 'errors').outcome).toBe('ok'); // 1 of 3 = 33 % ≤ 40 %
    const two = evaluate([ok(2), failed(1), failed(0)], T, BASE, RULES);
    expect(rule(two, 'errors')).toMatchObject({ outcome: 'fired', value: 2 / 3 });
    expect(rule(two, 'down').outcome).toBe('ok');
    const three = evaluate([ok(3), failed(2), failed(1), failed(0)], T, BASE, RULES);
    expect(three.level).toBe('down');
  });

  it('ITL: every probe above 100 ms for 5 minutes; decode: the whole p50 interval 30 % below the baseline', () => {
    expect(rule(evaluate([ok(1, { itl_p99_ms: 150 }), ok(0, { itl_p99_ms: 150 })], T, BASE, RULES), 'itl').outcome).toBe('fired');
    expect(rule(evaluate([ok(1, { itl_p99_ms: 90 }), ok(0, { itl_p99_ms: 150 })], T, BASE, RULES), 'itl').outcome).toBe('ok');
    expect(rule(evaluate([ok(0, { itl_p99_ms: 150 })], T, BASE, RULES), 'itl').outcome).toBe('insufficient');
    const slow = Array.from({ length: 6 }, (_, k) => ok(k, { decode_tps: 60 }));
    expect(rule(evaluate(slow, T, BASE, RULES), 'decode')).toMatchObject({ outcome: 'fired', value: 60, threshold: 70 });
    expect(rule(evaluate([...slow.slice(1), ok(0, { decode_tps: 95 })], T, BASE, RULES), 'decode').outcome).toBe('ok');
  });
});

const HOUR = 60 * MIN;

describe('hysteresis and aggregation', () => {
  const key = { region: 'apac', target: 't', variant: 'v' };
  const at = (k: number, level: 'operational' | 'degraded' | 'down') => ({
    ...evaluate([ok(0)], T + k * 5 * MIN, BASE, RULES),
    tick_id: T + k * 5 * MIN,
    level,
  });

  it('a worse finding flips at once; a better one after recoverAfter evaluations; an old one changes nothing', () => {
    let s = nextPairState(null, key, at(0, 'operational'), RULES)!;
    s = nextPairState(s, key, at(1, 'down'), RULES)!;
    expect(s.state).toBe('down');
    s = nextPairState(s, key, at(2, 'operational'), RULES)!;
    expect([s.state, s.better_streak]).toEqual(['down', 1]);
    s = nextPairState(s, key, at(3, 'down'), RULES)!;
    expect([s.state, s.better_streak]).toEqual(['down', 0]);
    s = nextPairState(s, key, at(4, 'operational'), RULES)!;
    s = nextPairState(s, key, at(5, 'operational'), RULES)!;
    expect(s.state).toBe('operational');
    expect(nextPairState(s, key, at(5, 'down'), RULES)).toBeNull();
    expect(pairAt(s, T + 3 * 5 * MIN)?.state).toBe('down');
  });

  it('the target is degraded or down as a whole only when at least half of its regions agree', () => {
    const p = (region: string, state: PairState['state']) => ({ region, target: 't', variant: 'v', state }) as PairState;
    expect(targetStatus('t', 'v', ['a', 'b', 'c'], [p('a', 'down'), p('b', 'operational'), p('c', 'operational')])).toMatchObject({
      state: 'operational',
      regional: [{ region: 'a', state: 'down' }],
    });
    expect(targetStatus('t', 'v', ['a', 'b', 'c'], [p('a', 'down'), p('b', 'degraded'), p('c', 'operational')])).toMatchObject({
      state: 'degraded',
      regional: [],
    });
    expect(targetStatus('t', 'v', ['a', 'b'], [p('a', 'down'), p('b', 'operational')]).state).toBe('down');
  });

  it('one incident per outage: opened, escalated, resolved, whatever order the regions report in', () => {
    const levels: Array<'operational' | 'degraded' | 'down'> = [
      'operational',
      'degraded',
      'down',
      'down',
      'operational',
      'operational',
      'operational',
    ];
    let apac: PairState | null = null;
    let weur: PairState | null = null;
    for (const [k, level] of levels.entries()) {
      apac = nextPairState(apac, key, at(k, level), RULES)!;
      weur = nextPairState(weur, { ...key, region: 'weur' }, at(k, 'operational'), RULES)!;
    }
    let open: Incident | null = null;
    const events: string[] = [];
    for (let k = 0; k < levels.length; k++) {
      const view = [apac!, weur!].map((p) => pairAt(p, T + k * 5 * MIN)!);
      const step = stepIncident(open, targetStatus('t', 'v', ['apac', 'weur'], view), view, T + k * 5 * MIN, 'Target');
      if (step.event) events.push(`${step.event.kind}@${k}:${step.event.severity}`);
      open = step.incident?.status === 'open' ? step.incident : null;
    }
    // Two regions: one is half, so apac alone makes it the target as a whole.
    expect(events).toEqual(['opened@1:degraded', 'escalated@2:down', 'resolved@5:down']);
  });
});

describe('baseline and config', () => {
  it('takes the same hour of the last 7 days when it has enough samples, else the trailing 24 hours', () => {
    const rows = (n: number, ttft: number, hour: number) =>
      rollUp(
        Array.from({ length: n }, (_, i) => ({
          tick_id: hour + i,
          region: 'r',
          target: 't',
          prompt_variant: 'v',
          method_version: 1,
          error: null,
          split_source: 'rtt',
          ttft_ms: ttft,
          ttfa_ms: ttft,
          tpot_ms: 10,
          itl_p99_ms: 20,
          total_ms: 900,
          decode_tps: 100,
          network_ms: 40,
          server_ms: ttft - 40,
        })),
      );
    const enough = chooseBaselines(rows(12, 300, T - 24 * HOUR), rows(30, 500, T - 2 * HOUR), 12).get('t|v')!;
    expect(enough).toMatchObject({ source: 'same-hour-7d', n: 12 });
    expect(enough.ttft_p99!).toBeCloseTo(300, -1);
    expect(chooseBaselines(rows(5, 300, T - 24 * HOUR), rows(30, 500, T - 2 * HOUR), 12).get('t|v')).toMatchObject({
      source: 'trailing-24h',
      n: 30,
    });
  });

  it('widens every window by the spread, so a pair probed every other tick still has its minimum of probes', () => {
    const spread = rulesForSpread(RULES, 2);
    expect([spread.ttft.windowMinutes, spread.itl.sustainMinutes, spread.decode.windowMinutes, spread.errors.windowMinutes]).toEqual([
      30, 10, 60, 30,
    ]);
    expect(rulesForSpread(RULES, 1)).toBe(RULES);
  });

  it('rules and channels are validated with clear messages; defaults fill what is left out', () => {
    expect(resolveStatusRules({ ttft: { ratio: 2 } }).ttft).toEqual({ ratio: 2, windowMinutes: 15, minSamples: 3 });
    const bad = {
      ...demo,
      status: { ttft: { minSamples: 1 }, recoverAfter: 0 },
      notifications: {
        channels: [
          { name: 'x', type: 'slack' as const, url: 'https://hooks.slack.com/services/T/B/K', urlSecret: 'SLACK' },
          { name: 'x', type: 'telegram' as const, botTokenSecret: 'sk-live-123', chatId: '' },
          { name: 'mail', type: 'email' as const, binding: 'EMAIL', from: 'nobody', to: 'ops@example.com' },
        ],
      },
    };
    try {
      validateConfig(bad);
      expect.unreachable();
    } catch (e) {
      expect((e as ConfigError).problems).toEqual(
        expect.arrayContaining([
          'status.ttft.minSamples must be a whole number from 3 to 10000, got 1',
          'status.recoverAfter must be a whole number from 1 to 100, got 0',
          'notifications channel "x": give url (or {VAR}) or urlSecret, exactly one',
          'notifications channel "x": botTokenSecret must name a Worker secret in UPPER_SNAKE_CASE, got "sk-live-123"',
          'notifications channel "x": chatId is required (a chat id such as "-1001234567890" or "@channel")',
          'notifications channel "mail": from must be an email address',
          'notifications channel "x" is listed twice',
        ]),
      );
    }
  });
});
