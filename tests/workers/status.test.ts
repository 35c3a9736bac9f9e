/**
 * Status rules, incidents and notifications inside workerd, on real probes: the reference endpoint
 * fails apac for 20 minutes (a regional problem), then apac and enam (the target as a whole), on
 * schedule (tests/helpers/outages.ts). Each notification goes over real HTTP to a loopback receiver
 * that can refuse its first requests; every body and signature is checked. (The tests share their
 * storage and the receiver, so each has its own outage and looks only at what it caused.)
 */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { createExecutionContext, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import worker from '../../workers/observatory/index.ts';
import { alarmsUntil, drain } from './drain.ts';
import { config } from './test-config.ts';
import { OUTAGES } from '../helpers/outages.ts';
import { expectConsoleErrors } from './console-errors.ts';
import { RETRY_BASE_MS } from '../../workers/observatory/status-keeper.ts';
import type { NotificationMessage } from '../../shared/status/messages.ts';
import type { Incident } from '../../shared/status/incidents.ts';
import { fireCron } from './fire-cron.ts';

const REGIONS = config.regions.map((r) => r.code);
/** What the loopback receiver recorded of one request (tests/helpers/notify-receiver.ts). */
interface ReceivedNotification {
  path: string;
  headers: Record<string, string>;
  body: string;
  answered: number;
}
const MINUTE = 60_000;
const keeper = () => env.STATUS_KEEPER.getByName('global');

async function tick(t: number): Promise<void> {
  await fireCron(t);
  await drain(REGIONS);
  // An alarm that fired on its own may still be evaluating: wait for it.
  for (const region of REGIONS) {
    await alarmsUntil(region, async () => (await env.REGION_PROBER.getByName(region).status()).pendingEvaluations === 0);
    expect((await env.REGION_PROBER.getByName(region).status()).pendingEvaluations, region).toBe(0);
  }
}

/** Runs the keeper's alarm until nothing it owes is due (bounded). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const s = await keeper().status();
    const due = s.notifications.next_attempt_at !== null && Date.parse(s.notifications.next_attempt_at) <= Date.now();
    if (!due && s.incidents_unwritten === 0) return;
    await runDurableObjectAlarm(keeper());
  }
}

/** Makes every pending delivery due now (time passing, without waiting for the backoff). */
async function makeDue(): Promise<void> {
  await runInDurableObject(keeper(), (_, state) => {
    state.storage.sql.exec("UPDATE deliveries SET next_at = 0 WHERE state = 'pending'");
  });
}

const control = (path: string) => fetch(`${env.NOTIFY_URL}/_control/${path}`);
const received = async () => (await (await control('received')).json()) as ReceivedNotification[];
const api = async <T>(path: string) =>
  (await (await worker.fetch(new Request(`http://observatory${path}`), env, createExecutionContext())).json()) as T;

async function incidentsOf(
  target: string,
  from: number,
  to: number,
): Promise<
  Array<
    Incident & {
      opened_at: string;
      timeline: Array<{ kind: string; at: string; severity: string; scope: string; regions: Array<{ region: string }> }>;
    }
  >
> {
  const body = await api<{ incidents: any[] }>(`/api/v1/incidents?from=${from}&to=${to}&target=${target}&points=true`);
  return body.incidents.filter((i) => Date.parse(i.opened_at) >= from && Date.parse(i.opened_at) < to);
}

describe('status and incidents', () => {
  it('a regional outage: one incident that opens, escalates and resolves, with every message delivered once despite a receiver that was down', async () => {
    const { from, to } = OUTAGES.regional;
    await control('reset');
    const logged = expectConsoleErrors(/delivery .* failed/);
    for (let t = from - 30 * MINUTE; t < from; t += 5 * MINUTE) await tick(t);
    await settle();
    // Refuse the next 4 requests for this outage's incidents (opened at its second tick): they must be retried.
    await control(`fail?n=4&match=${from + 5 * MINUTE}-`);
    for (let t = from; t <= from + 10 * MINUTE; t += 5 * MINUTE) await tick(t);

    // Mid-outage: apac is down for ref-chat, the target as a whole is not (1 of 3 regions).
    const status = await api<{
      targets: Array<{
        target: string;
        status: string;
        regional_problems: Array<{ region: string; state: string }>;
        regions: Array<{
          region: string;
          status: string;
          evidence: { rules: Array<{ rule: string; outcome: string; note: string; n: number }> };
        }>;
      }>;
    }>('/api/v1/status');
    const chat = status.targets.find((t) => t.target === 'ref-chat')!;
    expect(chat.status).toBe('operational');
    expect(chat.regional_problems).toEqual([{ region: 'apac', state: 'down' }]);
    const apac = chat.regions.find((r) => r.region === 'apac')!;
    expect(apac.status).toBe('down');
    expect(apac.evidence.rules.find((r) => r.rule === 'down')).toMatchObject({ outcome: 'fired', n: 3 });
    expect(apac.evidence.rules.find((r) => r.rule === 'down')!.note).toMatch(/the last 3 probes failed/);
    expect(chat.regions.find((r) => r.region === 'weur')!.status).toBe('operational');

    await runDurableObjectAlarm(keeper());
    const health = await api<{
      notifications: { pending: number; recent_attempts: Array<{ ok: boolean; status: number | null; error: string | null }> };
    }>('/api/v1/health');
    const failures = health.notifications.recent_attempts.filter((a) => !a.ok);
    expect(failures.length).toBe(4);
    // Published: the failure's kind and status, never the receiver's reply.
    for (const f of failures) expect(f).toMatchObject({ status: 503, error: 'http' });
    expect(logged.length).toBeGreaterThanOrEqual(4);
    // Backoff: a failed message waits before its next attempt, whether that attempt has come yet (a busy machine may
    // have taken longer than the wait since) or is still due.
    const log = await runInDurableObject(keeper(), (_, state) => ({
      attempts: state.storage.sql
        .exec<{ delivery_id: string; at: number; ok: number }>('SELECT delivery_id, at, ok FROM attempts ORDER BY seq')
        .toArray(),
      deliveries: state.storage.sql
        .exec<{ id: string; state: string; next_at: number }>('SELECT id, state, next_at FROM deliveries')
        .toArray(),
    }));
    const failed = log.attempts.filter((a) => a.ok === 0);
    expect(failed).toHaveLength(4);
    for (const f of failed) {
      const later = log.attempts.find((a) => a.delivery_id === f.delivery_id && a.at > f.at);
      const delivery = log.deliveries.find((d) => d.id === f.delivery_id)!;
      expect(later?.at ?? delivery.next_at, f.delivery_id).toBeGreaterThanOrEqual(f.at + RETRY_BASE_MS - 1);
    }
    // The keeper sleeps until the refused messages' retry, not in a loop over the later ones held behind them.
    const firstFailure = Math.min(
      ...health.notifications.recent_attempts.filter((a) => !a.ok).map((a) => Date.parse((a as unknown as { at: string }).at)),
    );
    const alarm = await runInDurableObject(keeper(), (_, state) => state.storage.getAlarm());
    if (alarm !== null) expect(alarm).toBeGreaterThanOrEqual(firstFailure + RETRY_BASE_MS - 1);

    for (let t = from + 15 * MINUTE; t <= to + 15 * MINUTE; t += 5 * MINUTE) await tick(t);
    await makeDue();
    await settle();

    for (const target of ['ref-chat', 'ref-messages']) {
      const [incident, ...more] = await incidentsOf(target, from - HOUR, to + HOUR);
      expect(more, target).toHaveLength(0);
      expect(incident.status).toBe('resolved');
      expect(incident.scope).toBe('regional');
      expect(incident.regions).toEqual(['apac']);
      expect(incident.timeline.map((e) => [e.kind, e.severity, e.at])).toEqual([
        ['opened', 'degraded', new Date(from + 5 * MINUTE).toISOString()],
        ['escalated', 'down', new Date(from + 10 * MINUTE).toISOString()],
        ['resolved', 'down', new Date(to + 5 * MINUTE).toISOString()],
      ]);
      // Its chart's points: apac's probes from 6 before the opening on; the 4 of the outage failed.
      expect(incident.points.filter((p) => p.error).map((p) => p.t)).toEqual([0, 5, 10, 15].map((m) => from + m * MINUTE));
      expect(incident.points[0].t).toBe(from - 25 * MINUTE);
    }

    // Every channel got each of its messages exactly once, delivered; a refused attempt was sent again.
    const all = (await received()).filter((r) => r.body.includes('ref-chat'));
    const delivered = all.filter((r) => r.answered === 200);
    const byPath = (prefix: string) => delivered.filter((r) => r.path.startsWith(prefix));
    const hooks = byPath('/hook').map((r) => ({ r, m: JSON.parse(r.body) as NotificationMessage }));
    expect(hooks.map((h) => h.m.type)).toEqual(['incident.opened', 'incident.escalated', 'incident.resolved']);
    expect(new Set(delivered.map((r) => r.headers['x-observatory-delivery'])).size).toBe(delivered.length);
    for (const { r, m } of hooks) {
      // Verified as a receiver would, with the Standard Webhooks library, by either of the rotating keys.
      expect(r.headers['webhook-signature'].split(' ')).toHaveLength(2);
      for (const key of env.WEBHOOK_SECRET.split(' ')) expect(new Webhook(key).verify(r.body, r.headers)).toEqual(m);
      expect(m.incident).toMatchObject({ target: 'ref-chat', target_label: 'Reference chat', scope: 'regional', regions: ['apac'] });
      expect(m.delivery_id).toBe(r.headers['x-observatory-delivery']);
    }
    expect(hooks[1].m.event.summary).toMatch(/apac down: the last 3 probes failed/);
    // Each names the target, the prompt variant, the region and the rule.
    const slack = byPath('/slack/').map((r) => JSON.parse(r.body).text.split('\n'));
    expect(slack.map((lines) => lines[0])).toEqual([
      '🔴 Incident opened: Reference chat, tiny prompt — degraded in apac',
      '🟠 Incident escalated: Reference chat, tiny prompt — down in apac',
      '✅ Incident resolved: Reference chat, tiny prompt — operational again in apac',
    ]);
    expect(slack[1].slice(1, 3)).toEqual([
      'Reference chat · prompt variant Tiny',
      expect.stringMatching(/^apac down: the last 3 probes failed/),
    ]);
    expect(byPath('/discord/').map((r) => JSON.parse(r.body).content.split('\n')[0].slice(0, 20))).toEqual([
      expect.stringContaining('opened'),
      expect.stringContaining('resolved'),
    ]);
    const telegram = byPath('/telegram/bot123456:test-bot-token/sendMessage').map((r) => JSON.parse(r.body));
    expect(telegram).toHaveLength(3);
    for (const t of telegram) expect(t.chat_id).toBe('-1001234567890');
    const ntfy = byPath('/ntfy/observatory-alerts');
    expect(ntfy.map((r) => r.headers.priority)).toEqual(['4', '5', '3']);
    for (const r of ntfy) expect(r.headers.authorization).toBe('Bearer tk_test');
    // The email channel: miniflare's send_email accepted each "opened" message (it rejects a malformed one).
    const attempts = (
      await api<{ notifications: { recent_attempts: Array<{ delivery_id: string; channel: string; ok: boolean; error: string | null }> } }>(
        '/api/v1/health',
      )
    ).notifications.recent_attempts;
    const mail = attempts.filter((a) => a.channel === 'mail' && a.delivery_id.includes('ref-chat'));
    expect(mail.map((a) => [a.ok, a.error])).toEqual([[true, null]]);
    // The refused attempts were of these messages, and each was later delivered.
    const refused = all.filter((r) => r.answered === 503).map((r) => r.headers['x-observatory-delivery']);
    expect(refused.length).toBeGreaterThan(0);
    for (const id of refused) expect(delivered.some((r) => r.headers['x-observatory-delivery'] === id)).toBe(true);
  });

  it('a repeated evaluation, a repeated alarm or two overlapping reports change nothing and send nothing', async () => {
    const { from } = OUTAGES.repeated;
    for (let t = from - 15 * MINUTE; t <= from + 10 * MINUTE; t += 5 * MINUTE) await tick(t);
    await settle();
    const incidents = await incidentsOf('ref-chat', from - HOUR, from + 2 * HOUR);
    expect(incidents.map((i) => i.timeline.map((e) => e.kind))).toEqual([['opened', 'escalated']]);
    // Only this outage's messages (other test files share the receiver): their ids begin with its opening tick.
    const mine = async () =>
      (await received()).filter((r) => (r.headers['x-observatory-delivery'] ?? '').startsWith(`${from + 5 * MINUTE}-`));
    const before = (await mine()).length;
    // The region evaluates again ticks it already reported (as after a lost acknowledgement), twice.
    for (let k = 0; k < 2; k++) {
      await runInDurableObject(env.REGION_PROBER.getByName('apac'), async (_, state) => {
        for (let t = from; t <= from + 10 * MINUTE; t += 5 * MINUTE)
          state.storage.sql.exec('INSERT OR IGNORE INTO evaluations (tick_id) VALUES (?)', t);
        await state.storage.setAlarm(Date.now());
      });
      await alarmsUntil('apac', async () => (await env.REGION_PROBER.getByName('apac').status()).pendingEvaluations === 0);
    }
    expect((await env.REGION_PROBER.getByName('apac').status()).pendingEvaluations).toBe(0);
    const pairs = (await keeper().status()).pairs.filter((p) => p.region === 'apac');
    const again = pairs.map((p) => ({ target: p.target, variant: p.variant, finding: p.finding }));
    expect(await keeper().report('apac', again)).toBe(0);
    // Two overlapping reports of a new tick: exactly one is applied.
    const next = pairs.map((p) => ({ target: p.target, variant: p.variant, finding: { ...p.finding, tick_id: p.last_tick + 5 * MINUTE } }));
    const applied = await Promise.all([keeper().report('apac', next), keeper().report('apac', next)]);
    expect(applied.sort()).toEqual([0, pairs.length]);
    await makeDue();
    await settle();
    expect(await incidentsOf('ref-chat', from - HOUR, from + 2 * HOUR)).toEqual(incidents);
    expect(before).toBeGreaterThan(0);
    const after = await mine();
    expect(after.slice(before).map((r) => `${r.path} ${r.headers['x-observatory-delivery']}`)).toEqual([]);
  });

  it('two of three regions down: the target as a whole, and a reminder while it stays open', async () => {
    const { from, to } = OUTAGES.wide;
    for (let t = from - 15 * MINUTE; t <= from + 10 * MINUTE; t += 5 * MINUTE) await tick(t);
    await settle();
    const status = await api<{
      targets: Array<{ target: string; status: string; regional_problems: unknown[] }>;
      open_incidents: Array<{ target: string; scope: string }>;
    }>('/api/v1/status');
    expect(status.targets.find((t) => t.target === 'ref-chat')).toMatchObject({ status: 'down', regional_problems: [] });
    expect(status.open_incidents.find((i) => i.target === 'ref-chat')).toMatchObject({ scope: 'target' });
    // An hour passes: the open incident is reminded of, once.
    await runInDurableObject(keeper(), (_, state) => {
      state.storage.sql.exec("UPDATE incidents SET reminded_at = 0 WHERE target = 'ref-chat' AND status = 'open'");
    });
    await runDurableObjectAlarm(keeper());
    await settle();
    const reminders = (await received())
      .filter((r) => r.path === '/hook' && r.answered === 200)
      .map((r) => JSON.parse(r.body) as NotificationMessage)
      .filter((m) => m.type === 'incident.reminder' && m.incident.target === 'ref-chat');
    expect(reminders).toHaveLength(1);
    expect(reminders[0].incident).toMatchObject({ scope: 'target', status: 'open' });
    for (let t = from + 15 * MINUTE; t <= to + 10 * MINUTE; t += 5 * MINUTE) await tick(t);
    await settle();
    const [incident] = await incidentsOf('ref-chat', from - HOUR, to + HOUR);
    expect(incident.timeline.map((e) => [e.kind, e.severity, e.scope])).toEqual([
      ['opened', 'degraded', 'target'],
      ['escalated', 'down', 'target'],
      ['resolved', 'down', 'target'],
    ]);
    expect(incident.regions).toEqual(['apac', 'enam']);
  });
});

const HOUR = 60 * MINUTE;

describe('what an evaluation costs', () => {
  it("reads only its own region's samples of the lookback, and the baseline rollups once an hour", async () => {
    const { meterD1 } = await import('../../workers/observatory/db/meter.ts');
    const { BaselineCache, evaluateTick } = await import('../../workers/observatory/status-evaluation.ts');
    const { resolveStatusRules, lookbackMs } = await import('../../shared/status/rules.ts');
    const { STATUS_READS_PER_SEEK, STATUS_BASELINE_HOURS } = await import('../../shared/config/capacity.ts');
    const rules = resolveStatusRules(config.status);
    const start = Date.UTC(2026, 2, 5, 10, 0);
    for (let t = start; t <= start + 35 * MINUTE; t += 5 * MINUTE) await tick(t);
    const last = start + 35 * MINUTE;
    const from = last - lookbackMs(rules, 5, 1);
    const count = async (sql: string, ...params: unknown[]) =>
      Number(
        (await env.DB.prepare(sql)
          .bind(...params)
          .first<{ n: number }>())!.n,
      );
    const mine = await count("SELECT COUNT(*) AS n FROM samples WHERE tick_id > ? AND tick_id <= ? AND region = 'weur'", from, last);
    const all = await count('SELECT COUNT(*) AS n FROM samples WHERE tick_id > ? AND tick_id <= ?', from, last);
    const ticks = Array.from({ length: 6 }, (_, k) => last - k * 5 * MINUTE);
    const cache = new BaselineCache();
    const first = meterD1(env.DB);
    const findings = await evaluateTick(first.db, 'weur', last, ticks, rules, cache);
    expect(findings.length).toBeGreaterThan(0);
    const second = meterD1(env.DB);
    await evaluateTick(second.db, 'weur', last, ticks, rules, cache);
    const hourly = await count(
      "SELECT COUNT(*) AS n FROM hourly_rollups WHERE region = 'weur' AND hour >= ? AND hour < ?",
      start - 24 * HOUR,
      start,
    );
    console.log(
      `evaluation: ${second.rowsRead} rows read (${mine} of this region's samples in the lookback, ${all} of all regions'); the hour's baseline ${first.rowsRead - second.rowsRead} more (${hourly} hourly rows of this region)`,
    );
    // A seek per tick (per hour for the baseline) on (tick_id, region): this region's rows, and at most 2 more a seek.
    expect(second.rowsRead).toBeGreaterThanOrEqual(mine);
    expect(second.rowsRead).toBeLessThanOrEqual(mine + STATUS_READS_PER_SEEK * ticks.length);
    expect(second.rowsRead).toBeLessThan(all);
    expect(first.rowsRead - second.rowsRead).toBeGreaterThanOrEqual(hourly);
    expect(first.rowsRead - second.rowsRead).toBeLessThanOrEqual(hourly + STATUS_READS_PER_SEEK * STATUS_BASELINE_HOURS);
  });
});
