/**
 * The weekly reports (workers/observatory/reports/, api/reports.ts): two weeks of paired hours written through the
 * rollups' own writer (one target slower in the second), incidents in and out of the week, an archive manifest. A
 * week's report is published once it has ended and its last hour settled, once: a second run writes nothing; a
 * version's object is never overwritten; a correction is the next version, and the two name each other. Each
 * answer comes from R2 alone (0 D1 rows, no Durable Object), a version's ETag its SHA-256, a superseded one cached
 * immutable. Its comparisons are GET /api/v1/compare's over the same week.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import type { ReportDigestMessage } from '../../shared/reports/digest.ts';
import type { NotificationsConfig } from '../../shared/status/channels.ts';
import { notificationProblems } from '../../shared/config/validate-status.ts';
import { NotificationOutbox } from '../../workers/observatory/notify/outbox.ts';
import { SubrequestBudget } from '../../workers/observatory/subrequest-budget.ts';
import type { CompareDoc } from '../../shared/api-types.ts';
import { METHOD_VERSION } from '../../shared/constants.ts';
import { MANIFEST_KEY } from '../../shared/archive/manifest.ts';
import { PAIRED_FIGURES, pairedHours } from '../../shared/rollup/paired-hours.ts';
import type { RollupSample } from '../../shared/rollup/rollup.ts';
import type { ReportIndex, WeeklyReport } from '../../shared/reports/report.ts';
import { weekSpan } from '../../shared/reports/week.ts';
import type { Incident } from '../../shared/status/incidents.ts';
import { HOUR_MS, MINUTE_MS } from '../../shared/time.ts';
import { storedList } from '../../workers/observatory/config.ts';
import { upsertPairedHourStatements } from '../../workers/observatory/db/paired.ts';
import { upsertIncidents } from '../../workers/observatory/db/status.ts';
import { forgetReportIndex, IMMUTABLE } from '../../workers/observatory/api/reports.ts';
import { PUBLISH_AFTER_MS, publishDueReport, publishOnSchedule } from '../../workers/observatory/reports/publish.ts';
import { createVersion, readReportIndex, REPORT_INDEX_KEY, reportKey } from '../../workers/observatory/reports/report-store.ts';
import { config } from './test-config.ts';
import { get, live } from './view-answers.ts';

const TICK_MS = 5 * MINUTE_MS;
const W47 = weekSpan('2026-W47')!;
const W48 = weekSpan('2026-W48')!;
const regions = config.regions.map((r) => r.code);
const VARIANT = config.promptVariants[0].id;
/** Each target's level; in W48 ref-messages is a third slower than in W47 (its verdicts change). */
const LEVEL: Record<string, number> = { 'ref-chat': 100, 'ref-messages': 125, 'ref-broken': 127, 'ref-no-key': 180 };
const level = (target: string, hour: number) => (LEVEL[target] ?? 100) * (target === 'ref-messages' && hour >= W48.from ? 4 / 3 : 1);
const noisy = (k: number, target: string, hour: number) =>
  level(target, hour) * (1 + 0.3 * Math.sin(k * 1.7)) * (1 + 0.04 * Math.sin(k * 2.9 + target.length));
const admin = { authorization: `Bearer ${env.ADMIN_TOKEN}` };

function sample(tick: number, region: string, target: string, ttfa: number): RollupSample {
  return {
    tick_id: tick,
    region,
    target,
    prompt_variant: VARIANT,
    method_version: METHOD_VERSION,
    error: null,
    split_source: null,
    ttft_ms: ttfa,
    ttfa_ms: ttfa,
    tpot_ms: 10 + (LEVEL[target] ?? 100) / 50,
    server_ms: ttfa - 20,
    network_ms: 20,
  } as unknown as RollupSample;
}

async function seedPairedHours(from: number, to: number): Promise<void> {
  let statements: D1PreparedStatement[] = [];
  for (let h = from; h < to; h += HOUR_MS) {
    const samples = [];
    for (let k = 0; k < 3; k++)
      for (const region of regions)
        for (const w of storedList(region)) {
          const tick = h + k * TICK_MS;
          samples.push(sample(tick, region, w.target.id, noisy(tick / TICK_MS, w.target.id, h)));
        }
    statements.push(...upsertPairedHourStatements(env.DB, pairedHours(samples)));
    if (statements.length >= 300) {
      await env.DB.batch(statements);
      statements = [];
    }
  }
  if (statements.length > 0) await env.DB.batch(statements);
}

function incident(id: string, opened: number, resolved: number | null): Incident {
  return {
    id,
    target: 'ref-chat',
    variant: VARIANT,
    status: resolved === null ? 'open' : 'resolved',
    severity: 'degraded',
    scope: 'regional',
    regions: ['weur'],
    rules: ['ttft'],
    opened_at: opened,
    updated_at: resolved ?? opened,
    resolved_at: resolved,
    timeline: [],
    points: [],
  } as unknown as Incident;
}

async function sha256(text: string): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return [...d].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Every report object's key and ETag: what a run that writes nothing leaves as it was. */
async function reportObjects(): Promise<string[]> {
  const listed = await env.ARCHIVE.list({ prefix: 'reports/' });
  return listed.objects.map((o) => `${o.key} ${o.etag}`).sort();
}

const fetchJson = async <T>(path: string, init: RequestInit = {}): Promise<{ r: Response; body: T }> => {
  const r = await get(path, init);
  expect(r.status, `${path}: ${await r.clone().text()}`).toBe(200);
  return { r, body: await r.json<T>() };
};

beforeAll(async () => {
  await seedPairedHours(W47.from, W48.to);
  await upsertIncidents(env.DB, [
    // Opened the week before and resolved in W48; open through W48; opened and resolved in W48; all before W48; after it.
    incident('i-spans-start', W48.from - 5 * HOUR_MS, W48.from + 2 * HOUR_MS),
    incident('i-open', W48.from + 30 * HOUR_MS, null),
    incident('i-inside', W48.from + 50 * HOUR_MS, W48.from + 52 * HOUR_MS),
    incident('i-before', W47.from + HOUR_MS, W47.from + 3 * HOUR_MS),
    incident('i-after', W48.to + HOUR_MS, W48.to + 2 * HOUR_MS),
  ]);
  const file = (day: string) => ({
    key: `samples/day=${day}/region=weur.parquet`,
    table: 'samples',
    day,
    region: 'weur',
    rows: 10,
    bytes: 100,
    sha256: 'ab'.repeat(32),
    schema_version: 1,
  });
  await env.ARCHIVE.put(
    MANIFEST_KEY,
    JSON.stringify({ manifest_version: 1, files: [file('2026-11-22'), file('2026-11-23'), file('2026-11-29'), file('2026-11-30')] }),
  );
}, 120_000);

describe('publishing a week', () => {
  it('waits for the week to end and its last hour to settle, then publishes it once', async () => {
    // W47 first (the week before W48 ended, so its last ended week then): its report has no week before it measured.
    const first = await publishDueReport(env.DB, env.ARCHIVE, W48.from + 2 * HOUR_MS);
    expect(first).toMatchObject({ week: '2026-W47', outcome: 'published', created: true });
    // Monday 00:30: W48 has ended, but not PUBLISH_AFTER_MS ago.
    const early = await publishDueReport(env.DB, env.ARCHIVE, W48.to + PUBLISH_AFTER_MS / 2);
    expect(early).toEqual({ week: '2026-W47', outcome: 'already_published' });
    const due = await publishDueReport(env.DB, env.ARCHIVE, W48.to + PUBLISH_AFTER_MS);
    expect(due).toMatchObject({ week: '2026-W48', outcome: 'published', created: true, entry: { version: 1, superseded_by: null } });

    const before = await reportObjects();
    expect(before).toHaveLength(3);
    const again = await publishDueReport(env.DB, env.ARCHIVE, W48.to + 5 * HOUR_MS);
    expect(again).toEqual({ week: '2026-W48', outcome: 'already_published' });
    expect(await reportObjects()).toEqual(before);
  });

  it('runs from the cron at the tick PUBLISH_AFTER_MS past midnight only, and then writes nothing new', async () => {
    const before = await reportObjects();
    const tick = 5 * MINUTE_MS;
    expect(await publishOnSchedule(env, W48.to + PUBLISH_AFTER_MS - tick, tick)).toBeNull();
    expect(await publishOnSchedule(env, W48.to + PUBLISH_AFTER_MS + tick, tick)).toBeNull();
    expect(await publishOnSchedule(env, W48.to + PUBLISH_AFTER_MS, tick)).toEqual({ week: '2026-W48', outcome: 'already_published' });
    expect(await reportObjects()).toEqual(before);
  });

  it('holds the week’s comparisons as GET /api/v1/compare gives them, its leaders and its changes', async () => {
    forgetReportIndex();
    const { body: report } = await fetchJson<WeeklyReport>('/api/v1/reports/2026-W48/v1');
    expect(report).toMatchObject({ week: '2026-W48', version: 1, previous_week: '2026-W47', corrects: null });
    expect(report.families.map((f) => f.region).sort()).toEqual([...regions].sort());
    const window = `from=${new Date(W48.from).toISOString()}&to=${new Date(W48.to).toISOString()}`;
    for (const f of report.families)
      for (const x of f.figures) {
        const r = await live(`/api/v1/compare?${window}&region=${f.region}&variant=${f.prompt_variant}&figure=${x.figure}`);
        expect(r.status).toBe(200);
        expect(x.comparisons).toEqual((await r.json<CompareDoc>()).comparisons);
      }
    expect(report.families[0].figures.map((x) => x.figure)).toEqual([...PAIRED_FIGURES]);
    const weur = report.families.find((f) => f.region === 'weur')!.figures.find((x) => x.figure === 'ttfa_ms')!;
    expect(weur.leaders).toEqual(['ref-chat']);
    // ref-messages went from level with ref-broken to slower than it: that pair's verdict changed.
    const change = weur.changes.find((c) => c.a === 'ref-broken' && c.b === 'ref-messages');
    expect(change).toMatchObject({ verdict: 'a_faster', previous_verdict: 'no_difference' });
    expect(weur.changes.find((c) => c.a === 'ref-chat' && c.b === 'ref-no-key')).toBeUndefined();
    expect(report.incidents.map((i) => i.id).sort()).toEqual(['i-inside', 'i-open', 'i-spans-start']);
    expect(report.data.files.map((f) => f.day)).toEqual(['2026-11-23', '2026-11-29']);

    const { body: w47 } = await fetchJson<WeeklyReport>('/api/v1/reports/2026-W47/v1');
    const w47weur = w47.families.find((f) => f.region === 'weur')!.figures.find((x) => x.figure === 'ttfa_ms')!;
    expect(w47weur.previous_leaders).toEqual([]);
    // The week before it had no paired hour: every pair was not_enough_data then.
    expect(w47weur.changes.length).toBeGreaterThan(0);
    expect(w47weur.changes.every((c) => c.previous_verdict === 'not_enough_data')).toBe(true);
  });
});

describe('immutability and corrections', () => {
  it('refuses to overwrite a stored version', async () => {
    const key = reportKey('2026-W48', 1);
    const stored = await env.ARCHIVE.get(key);
    const text = await stored!.text();
    const other = '{"tampered":true}';
    expect(await createVersion(env.ARCHIVE, key, other, await sha256(other))).toBe(false);
    expect(await (await env.ARCHIVE.get(key))!.text()).toBe(text);
    expect((await env.ARCHIVE.head(key))!.etag).toBe(stored!.etag);
  });

  it('a correction is the next version; the two name each other; the first stays as it was', async () => {
    const v1Text = await (await get('/api/v1/reports/2026-W48/v1')).text();
    const reason = 'ref-messages was measured through a broken proxy on 2026-11-25';
    const refused = await get('/api/v1/reports/2026-W48/corrections', { method: 'POST', body: JSON.stringify({ reason }) });
    expect(refused.status).toBe(401);
    const none = await get('/api/v1/reports/2026-W40/corrections', { method: 'POST', headers: admin, body: JSON.stringify({ reason }) });
    expect(none.status).toBe(404);
    const bad = await get('/api/v1/reports/2026-W48/corrections', { method: 'POST', headers: admin, body: '{"reason":""}' });
    expect(bad.status).toBe(400);
    const { body: done } = await fetchJson<{ entry: { version: number } }>('/api/v1/reports/2026-W48/corrections', {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ reason }),
    });
    expect(done.entry.version).toBe(2);

    const v1 = await get('/api/v1/reports/2026-W48/v1');
    expect(await v1.text()).toBe(v1Text);
    expect(v1.headers.get('x-report-superseded-by')).toBe('/api/v1/reports/2026-W48/v2');
    expect(v1.headers.get('link')).toBe('</api/v1/reports/2026-W48/v2>; rel="successor-version"');
    expect(v1.headers.get('cache-control')).toBe(IMMUTABLE);

    const v2 = await get('/api/v1/reports/2026-W48/v2');
    const v2Report = await v2.clone().json<WeeklyReport>();
    expect(v2Report).toMatchObject({ version: 2, corrects: { version: 1, reason } });
    expect(v2.headers.get('link')).toBe('</api/v1/reports/2026-W48/v1>; rel="predecessor-version"');
    // Not superseded yet: its answer may still gain a successor link.
    expect(v2.headers.get('cache-control')).toBe('public, max-age=300');

    const current = await get('/api/v1/reports/2026-W48');
    expect(current.headers.get('content-location')).toBe('/api/v1/reports/2026-W48/v2');
    expect(await current.text()).toBe(await v2.text());

    const { body: index } = await fetchJson<ReportIndex & { weeks: Array<{ current: { version: number } }> }>('/api/v1/reports');
    expect(index.weeks.map((w) => w.week)).toEqual(['2026-W48', '2026-W47']);
    const w48 = index.weeks[0];
    expect(w48.current.version).toBe(2);
    expect(w48.versions.map((v) => [v.version, v.superseded_by, v.corrects?.version ?? null])).toEqual([
      [1, 2, null],
      [2, null, 1],
    ]);
    expect(w48.versions[0].sha256).toBe(await sha256(v1Text));
    expect(w48.versions[1].sha256).toBe(await sha256(JSON.stringify(v2Report)));
  });

  it('a version written by a run whose index write failed is named by the next run, not written again', async () => {
    // As if a run had created W49's v1 and then died: its object is there, the index does not name it.
    const W49 = weekSpan('2026-W49')!;
    await seedPairedHours(W49.from, W49.from + 6 * HOUR_MS);
    const indexBefore = await (await env.ARCHIVE.get(REPORT_INDEX_KEY))!.text();
    const first = await publishDueReport(env.DB, env.ARCHIVE, W49.to + PUBLISH_AFTER_MS);
    expect(first).toMatchObject({ week: '2026-W49', outcome: 'published', created: true });
    const object = await env.ARCHIVE.head(reportKey('2026-W49', 1));
    await env.ARCHIVE.put(REPORT_INDEX_KEY, indexBefore);
    const second = await publishDueReport(env.DB, env.ARCHIVE, W49.to + 2 * PUBLISH_AFTER_MS);
    expect(second).toMatchObject({ week: '2026-W49', outcome: 'published', created: false, entry: { version: 1 } });
    expect((await env.ARCHIVE.head(reportKey('2026-W49', 1)))!.etag).toBe(object!.etag);
  });

  it('a week nothing was measured in is not published', async () => {
    const W30 = weekSpan('2026-W30')!;
    expect(await publishDueReport(env.DB, env.ARCHIVE, W30.to + PUBLISH_AFTER_MS)).toEqual({ week: '2026-W30', outcome: 'unmeasured' });
    expect((await reportObjects()).some((k) => k.startsWith('reports/2026-W30/'))).toBe(false);
    // Nor one whose week before was measured (W49's first hours) but not itself.
    const W50 = weekSpan('2026-W50')!;
    expect(await publishDueReport(env.DB, env.ARCHIVE, W50.to + PUBLISH_AFTER_MS)).toEqual({ week: '2026-W50', outcome: 'unmeasured' });
  });
});

describe('the reports API', () => {
  it('answers from R2 alone: no D1 row, no Durable Object; ETag the SHA-256, 304 on If-None-Match, HEAD alike', async () => {
    forgetReportIndex();
    for (const path of ['/api/v1/reports', '/api/v1/reports/2026-W48', '/api/v1/reports/2026-W48/v1', '/api/v1/reports/2026-W48/v2']) {
      const r = await get(path);
      expect(r.status, path).toBe(200);
      expect(r.headers.get('x-d1-rows-read'), path).toBe('0');
      expect(r.headers.get('x-do-requests'), path).toBe('0');
      expect(r.headers.get('content-type'), path).toMatch(/^application\/json/);
      const text = await r.text();
      if (path === '/api/v1/reports') continue;
      const etag = r.headers.get('etag')!;
      expect(etag, path).toBe(`"${await sha256(text)}"`);
      const head = await get(path, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('etag')).toBe(etag);
      expect(await head.text()).toBe('');
      const again = await get(path, { headers: { 'if-none-match': etag } });
      expect(again.status, path).toBe(304);
      expect(again.headers.get('x-d1-rows-read')).toBe('0');
    }
  });

  it('says what it does not hold', async () => {
    expect((await get('/api/v1/reports/2026-W40')).status).toBe(404);
    expect((await get('/api/v1/reports/2026-W48/v9')).status).toBe(404);
    expect((await get('/api/v1/reports/2026-48')).status).toBe(400);
    expect((await get('/api/v1/reports/2026-W48/2')).status).toBe(400);
    const r = await get('/api/v1/reports/2026-W48/v9');
    expect(r.headers.get('x-d1-rows-read')).toBe('0');
  });
});

describe('the digest', () => {
  it('a channel with digest: true gets one message per published version, a correction’s saying so; none twice', async () => {
    const notifications: NotificationsConfig = {
      siteUrl: 'https://observatory.example',
      channels: [
        { name: 'digest-hook', type: 'webhook', url: '{NOTIFY_URL}/reports-digest/hook', digest: true, events: [] },
        { name: 'digest-slack', type: 'slack', url: '{NOTIFY_URL}/reports-digest/slack', digest: true },
        { name: 'no-digest', type: 'webhook', url: '{NOTIFY_URL}/reports-digest/none' },
        // Not a type whose message is its text: no digest (the configuration check refuses it too).
        { name: 'digest-ntfy', type: 'ntfy', url: '{NOTIFY_URL}/reports-digest/ntfy', digest: true },
      ],
    };
    const { index } = await readReportIndex(env.ARCHIVE);
    const [e1, e2] = index.weeks.find((w) => w.week === '2026-W48')!.versions;
    const read = async (v: number) => JSON.parse(await (await env.ARCHIVE.get(reportKey('2026-W48', v)))!.text()) as WeeklyReport;
    const [v1, v2] = [await read(1), await read(2)];
    const now = Date.now();
    const queued = await runInDurableObject(env.STATUS_KEEPER.getByName('reports-digest'), async (_, state) => {
      const outbox = new NotificationOutbox(state.storage, env, () => notifications);
      outbox.migrate();
      const counts = [outbox.queueDigest(v1, e1, now), outbox.queueDigest(v1, e1, now), outbox.queueDigest(v2, e2, now)];
      await outbox.deliverDue(now, new SubrequestBudget(50));
      await outbox.deliverDue(now, new SubrequestBudget(50));
      return counts;
    });
    expect(queued).toEqual([2, 0, 2]);
    const got = ((await (await fetch(`${env.NOTIFY_URL}/_control/received`)).json()) as Array<{ path: string; body: string }>).filter((r) =>
      r.path.startsWith('/reports-digest/'),
    );
    expect(got.map((r) => r.path).sort()).toEqual([
      '/reports-digest/hook',
      '/reports-digest/hook',
      '/reports-digest/slack',
      '/reports-digest/slack',
    ]);
    const hooks = got.filter((r) => r.path.endsWith('/hook')).map((r) => JSON.parse(r.body) as ReportDigestMessage);
    expect(hooks.map((m) => [m.type, m.report.version, m.report.corrects?.version ?? null, m.report.sha256])).toEqual([
      ['report.published', 1, null, e1.sha256],
      ['report.published', 2, 1, e2.sha256],
    ]);
    expect(hooks[1].link).toBe('https://observatory.example/reports/2026-W48/#v2');
    const slack = got.filter((r) => r.path.endsWith('/slack')).map((r) => (JSON.parse(r.body) as { text: string }).text);
    expect(slack[0]).toMatch(/^📊 Weekly report 2026-W48\n/);
    expect(slack[0]).toContain('weur · tiny · ttfa_ms: ref-chat;');
    expect(slack[1]).toContain(`Corrects version 1: ${v2.corrects!.reason}`);
  });

  it('the configuration check refuses a digest on a channel that cannot send it', () => {
    const problems = notificationProblems(
      { channels: [{ name: 'pd', type: 'pagerduty', routingKeySecret: 'PD_KEY', digest: true }] },
      { targets: [], regions: [] },
    );
    expect(problems.join('\n')).toContain('digest is for webhook, slack, discord, telegram, email channels, not pagerduty');
  });
});
