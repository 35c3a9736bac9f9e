/**
 * Vendor status pages in workerd: the cron hands each tick's duty to the poller, whose alarm polls the Statuspage
 * its targets name (a loopback stand-in, tests/helpers/statuspage-server.ts), stores its incidents in D1 and writes
 * nothing when nothing changed; malformed, huge, over-long, slow and failing answers are each a clear error on
 * /api/v1/health, written once, and lose nothing; GET /api/v1/vendor-incidents sets them beside the probes'
 * incidents with the detection lead.
 * The page is `{VENDOR_STATUS_URL}` (test-config.ts): unset in every other test, so inactive there.
 */
import { describe, expect, it } from 'vitest';
import { runDurableObjectAlarm, runInDurableObject, SELF } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { fireCron } from './fire-cron.ts';
import { drain } from './drain.ts';
import { expectConsoleErrors } from './console-errors.ts';
import { config } from './test-config.ts';
import { meterD1 } from '../../workers/observatory/db/meter.ts';
import { upsertIncidents } from '../../workers/observatory/db/status.ts';
import { pollsAt, pollVendorStatus, type VendorStatusWork } from '../../workers/observatory/vendor/vendor-status.ts';
import { POLLER_NAME } from '../../workers/observatory/vendor/vendor-status-poller.ts';
import {
  VENDOR_BODY_MAX_BYTES,
  VENDOR_INCIDENTS_PER_POLL,
  VENDOR_MAX_LISTED_INCIDENTS,
  VENDOR_MAX_LISTED_UPDATES,
  VENDOR_POLL_MS,
} from '../../shared/status/statuspage.ts';
import { craftedIncidentsList, statuspageIncident, type StatuspageFixture, type StatuspageHit } from '../helpers/statuspage-fixtures.ts';
import { opened, resolved } from '../helpers/incident-fixture.ts';
import type { VendorIncidentsDoc, VendorPageDoc } from '../../shared/api-types.ts';

const BASE = env.STATUSPAGE_URL;
const PAGE = '{VENDOR_STATUS_URL}';
const MIN = 60_000;
const DAY = 24 * 60 * MIN;
/** 2026-11-03 12:00 UTC: not the first tick of a day (no retention), on the 5-minute grid. */
const T = Date.UTC(2026, 10, 3, 12, 0);
const iso = (t: number) => new Date(t).toISOString();
const REGIONS = config.regions.map((r) => r.code);

const serve = async (page: string, fixture: StatuspageFixture) => {
  const r = await fetch(`${BASE}/${page}/_fixture`, { method: 'PUT', body: JSON.stringify(fixture) });
  expect(r.status).toBe(204);
};
const hits = async (page: string) => (await (await fetch(`${BASE}/${page}/_hits`)).json()) as StatuspageHit[];
/** The observatory's bindings with the page pointed at a stand-in page, and D1 metered. */
function pointedAt(page: string) {
  const meter = meterD1(env.DB);
  return { env: { ...env, DB: meter.db, VENDOR_STATUS_URL: `${BASE}/${page}` } as Env, meter };
}
const stored = async () =>
  (
    await env.DB.prepare('SELECT id, name, status, resolved_at, updates FROM vendor_incidents WHERE page = ? ORDER BY created_at')
      .bind(PAGE)
      .all<{
        id: string;
        name: string;
        status: string;
        resolved_at: number | null;
        updates: string;
      }>()
  ).results;
const health = async () =>
  ((await (await SELF.fetch('http://observatory/api/v1/health')).json()) as { vendor_status: VendorPageDoc[] }).vendor_status;
const clear = () => env.DB.batch([env.DB.prepare('DELETE FROM vendor_incidents'), env.DB.prepare('DELETE FROM vendor_status_pages')]);

const two = (t: number) => [
  statuspageIncident({
    id: 'v1',
    name: 'Elevated errors',
    created: iso(t - 30 * MIN),
    resolved: iso(t - 10 * MIN),
    updates: [
      ['investigating', iso(t - 30 * MIN)],
      ['resolved', iso(t - 10 * MIN)],
    ],
  }),
  statuspageIncident({ id: 'v2', name: 'Slow responses', created: iso(t - 5 * MIN) }),
];

const poller = () => env.VENDOR_STATUS_POLLER.getByName(POLLER_NAME);
/** Runs the poller's alarm until the duty it holds is done (bounded). */
async function settlePoller(): Promise<void> {
  for (let i = 0; i < 50 && (await poller().pending()) !== null; i++) {
    await runDurableObjectAlarm(poller());
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(await poller().pending()).toBeNull();
}

describe('the vendor status poll', () => {
  it('is handed by the cron, which fetches nothing itself, to the poller, whose alarm polls the page and stores its incidents', async () => {
    await clear();
    await serve('wired', { mode: 'incidents', incidents: two(T), etag: '"w1"' });
    // The cron with a poller that only records what it is handed: the cron's own invocation reads no page.
    const handed: VendorStatusWork[] = [];
    const recording = { getByName: () => ({ schedule: async (work: VendorStatusWork) => void handed.push(work) }) };
    await fireCron(T, { bindings: { ...pointedAt('wired').env, VENDOR_STATUS_POLLER: recording } as unknown as Env });
    await drain(REGIONS);
    expect(handed).toEqual([{ tickId: T, pages: [{ page: PAGE, url: `${BASE}/wired` }], retention: false, poll: true }]);
    expect(await hits('wired')).toEqual([]);
    // The poller's alarm does the duty (the cron's real call is this one).
    await poller().schedule(handed[0]);
    await settlePoller();
    expect((await stored()).map((i) => [i.id, i.name, i.status, i.resolved_at])).toEqual([
      ['v1', 'Elevated errors', 'resolved', T - 10 * MIN],
      ['v2', 'Slow responses', 'investigating', null],
    ]);
    expect(JSON.parse((await stored())[0].updates)).toEqual([
      { status: 'investigating', at: T - 30 * MIN },
      { status: 'resolved', at: T - 10 * MIN },
    ]);
    const [page] = await health();
    expect(page).toMatchObject({
      page: PAGE,
      url: `${BASE}/wired`,
      targets: ['ref-messages', 'ref-broken'],
      watched_since: iso(T),
      error: null,
    });
    // A cron without the variable (every other test's) hands nothing over, and nothing is polled.
    await fireCron(T + 5 * MIN);
    await drain(REGIONS);
    expect(await poller().pending()).toBeNull();
    expect(await hits('wired')).toHaveLength(1);
  });

  it('keeps the newer of two duties handed over before its alarm, and a retention delete asked for', async () => {
    const work = (tickId: number, retention: boolean): VendorStatusWork => ({ tickId, pages: [], retention, poll: false });
    // An alarm far ahead stands for one not yet fired (schedule keeps an alarm already set), so none runs meanwhile.
    await runInDurableObject(poller(), (_, state: DurableObjectState) => state.storage.setAlarm(Date.now() + DAY));
    await poller().schedule(work(T - DAY, true));
    await poller().schedule(work(T, false));
    await poller().schedule(work(T - 5 * MIN, false));
    expect(await poller().pending()).toEqual(work(T, true));
    await runInDurableObject(poller(), (_, state: DurableObjectState) => state.storage.setAlarm(Date.now()));
    await settlePoller();
  });

  it('writes nothing to D1 when nothing changed: a 304 for its ETag, or the same list again', async () => {
    await clear();
    await serve('quiet', { mode: 'incidents', incidents: two(T), etag: '"q1"' });
    const { env: bound, meter } = pointedAt('quiet');
    expect(await pollVendorStatus(bound, T)).toEqual([{ page: PAGE, outcome: 'fetched', written: 2 }]);
    expect(meter.rowsWritten).toBeGreaterThan(0);
    meter.reset();
    expect(await pollVendorStatus(bound, T + 5 * MIN)).toEqual([{ page: PAGE, outcome: 'unchanged', written: 0 }]);
    expect((await hits('quiet')).map((h) => [h.ifNoneMatch, h.answered])).toEqual([
      [null, 200],
      ['"q1"', 304],
    ]);
    // Without an ETag the same list comes again: compared by fingerprint, nothing is rewritten.
    await serve('quiet', { mode: 'incidents', incidents: two(T) });
    expect(await pollVendorStatus(bound, T + 10 * MIN)).toEqual([{ page: PAGE, outcome: 'fetched', written: 0 }]);
    // Each poll read the page's state row, and wrote nothing.
    expect([meter.rowsWritten, meter.rowsRead]).toEqual([0, 2]);
    // An update to one incident rewrites that one.
    const updated = two(T);
    updated[1] = statuspageIncident({
      id: 'v2',
      name: 'Slow responses',
      created: iso(T - 5 * MIN),
      updates: [
        ['investigating', iso(T - 5 * MIN)],
        ['identified', iso(T + 12 * MIN)],
      ],
    });
    await serve('quiet', { mode: 'incidents', incidents: updated, etag: '"q2"' });
    expect(await pollVendorStatus(bound, T + 15 * MIN)).toEqual([{ page: PAGE, outcome: 'fetched', written: 1 }]);
    expect(JSON.parse((await stored())[1].updates).map((u: { status: string }) => u.status)).toEqual(['investigating', 'identified']);
  });

  it('records each fault as a clear error, once, and loses none of what was recorded', async () => {
    const seen = expectConsoleErrors(/^vendor status \{VENDOR_STATUS_URL\}: /);
    await clear();
    await serve('faulty', { mode: 'incidents', incidents: two(T) });
    const { env: bound, meter } = pointedAt('faulty');
    await pollVendorStatus(bound, T);
    const before = await stored();
    expect(before).toHaveLength(2);
    const faults: Array<[StatuspageFixture, string, RegExp]> = [
      [{ mode: 'malformed' }, 'malformed', /^its body is not JSON/],
      [{ mode: 'huge', bytes: VENDOR_BODY_MAX_BYTES + 1 }, 'too_large', /passed the 1,048,576 bytes read at most/],
      [{ mode: 'huge', bytes: 50 * 1024 * 1024, declareLength: true }, 'too_large', /52,428,800 bytes, over the 1,048,576/],
      // Bodies within the byte cap, crafted to cost the most CPU to read: refused by their counts, before any entry is read.
      [
        { mode: 'incidents', incidents: craftedIncidentsList.tinyIncidents(VENDOR_BODY_MAX_BYTES - 1_024).incidents },
        'too_large',
        new RegExp(`^it lists [\\d,]+ incidents, over the ${VENDOR_MAX_LISTED_INCIDENTS} read at most; not read`),
      ],
      [
        { mode: 'incidents', incidents: craftedIncidentsList.manyUpdates(VENDOR_BODY_MAX_BYTES - 1_024).incidents },
        'too_large',
        new RegExp(`^its incident #1 lists [\\d,]+ updates, over the ${VENDOR_MAX_LISTED_UPDATES} read at most; not read`),
      ],
      [{ mode: 'status', status: 503 }, 'http', /^answered HTTP 503/],
      [{ mode: 'slow-body', delayMs: 10_000, incidents: [] }, 'timeout', /^its body did not arrive within 0.3 s/],
      [{ mode: 'slow-headers', delayMs: 10_000 }, 'timeout', /^no answer within 0.3 s/],
    ];
    let tick = T;
    for (const [fixture, kind, message] of faults) {
      await serve('faulty', fixture);
      tick += 5 * MIN;
      const [report] = await pollVendorStatus(bound, tick, { limits: { timeoutMs: 300, maxBytes: VENDOR_BODY_MAX_BYTES } });
      expect(report, kind).toMatchObject({ outcome: 'failed', written: 0 });
      const [page] = await health();
      expect(page.error, JSON.stringify(fixture)).toMatchObject({ kind, message: expect.stringMatching(message), since: iso(T + 5 * MIN) });
      expect(await stored()).toEqual(before);
      // The same failure again is not written again.
      meter.reset();
      tick += 5 * MIN;
      await pollVendorStatus(bound, tick, { limits: { timeoutMs: 300, maxBytes: VENDOR_BODY_MAX_BYTES } });
      expect(meter.rowsWritten, `${kind} again`).toBe(0);
    }
    expect(seen.length).toBe(2 * faults.length);
    // A good answer clears the error; the incidents were never touched.
    await serve('faulty', { mode: 'incidents', incidents: two(T) });
    expect(await pollVendorStatus(bound, tick + 5 * MIN)).toEqual([{ page: PAGE, outcome: 'fetched', written: 0 }]);
    expect((await health())[0].error).toBeNull();
    expect(await stored()).toEqual(before);
  }, 60_000);

  it('keeps exactly the newest VENDOR_INCIDENTS_PER_POLL of a longer list', async () => {
    await clear();
    const many = Array.from({ length: 120 }, (_, i) => statuspageIncident({ id: `m${i}`, created: iso(T - (120 - i) * MIN) }));
    await serve('long', { mode: 'incidents', incidents: many });
    const { env: bound } = pointedAt('long');
    expect(await pollVendorStatus(bound, T)).toEqual([{ page: PAGE, outcome: 'fetched', written: VENDOR_INCIDENTS_PER_POLL }]);
    const ids = (await stored()).map((i) => i.id);
    expect(ids).toHaveLength(VENDOR_INCIDENTS_PER_POLL);
    expect([ids[0], ids.at(-1)]).toEqual([`m${120 - VENDOR_INCIDENTS_PER_POLL}`, 'm119']);
  });

  it('is inactive, reading and writing nothing, while its variable is unset; polls on the 5-minute grid', async () => {
    const meter = meterD1(env.DB);
    expect(await pollVendorStatus({ ...env, DB: meter.db } as Env, T)).toEqual([{ page: PAGE, outcome: 'inactive', written: 0 }]);
    expect([meter.rowsRead, meter.rowsWritten]).toEqual([0, 0]);
    // With one-minute ticks, the first of each five; with five-minute (or longer) ticks, every one.
    expect([0, 1, 2, 3, 4, 5].map((m) => pollsAt(T + m * MIN, MIN))).toEqual([true, false, false, false, false, true]);
    expect(pollsAt(T + 5 * MIN, 5 * MIN)).toBe(true);
    expect(VENDOR_POLL_MS).toBe(5 * MIN);
  });
});

describe('GET /api/v1/vendor-incidents', () => {
  it("sets the vendor's incidents beside the probes': the lead of each overlap, and what has no partner", async () => {
    await clear();
    // The first poll (an empty list) starts the comparison.
    await serve('compared', { mode: 'incidents', incidents: [] });
    const { env: bound } = pointedAt('compared');
    await pollVendorStatus(bound, T);
    // The probes saw ref-broken fail 14 minutes before the vendor posted; ref-messages failed with no post; the vendor posted
    // one the probes never saw; ref-chat names no page, so its incident is not compared.
    const seenFirst = resolved(opened('ref-broken', 'tiny', ['weur', 'apac'], [], T + 46 * MIN)).incident;
    const unposted = opened('ref-messages', 'tiny', ['enam'], [], T + 1_000 * MIN).incident;
    const elsewhere = opened('ref-chat', 'tiny', ['enam'], [], T + 60 * MIN).incident;
    await upsertIncidents(env.DB, [seenFirst, unposted, elsewhere]);
    await serve('compared', {
      mode: 'incidents',
      incidents: [
        statuspageIncident({
          id: 'vA',
          name: 'Elevated error rates',
          created: iso(T + 60 * MIN),
          resolved: iso(T + 90 * MIN),
          components: ['Chat API'],
          updates: [
            ['investigating', iso(T + 60 * MIN)],
            ['resolved', iso(T + 90 * MIN)],
          ],
        }),
        statuspageIncident({
          id: 'vU',
          name: 'Dashboard slow',
          impact: 'minor',
          created: iso(T + 600 * MIN),
          resolved: iso(T + 620 * MIN),
        }),
      ],
    });
    await pollVendorStatus(bound, T + 1_100 * MIN);

    const r = await SELF.fetch(`http://observatory/api/v1/vendor-incidents?from=${T - 60 * MIN}&to=${T + 1_440 * MIN}`);
    expect(r.status).toBe(200);
    const doc = (await r.json()) as VendorIncidentsDoc;
    expect(doc.slack_minutes).toBe(120);
    expect(doc.pages).toEqual([
      {
        page: PAGE,
        url: `${BASE}/compared`,
        targets: ['ref-messages', 'ref-broken'],
        watched_since: iso(T),
        changed_at: iso(T + 1_100 * MIN),
        error: null,
      },
    ]);
    expect(doc.vendor_incidents.map((v) => [v.id, v.created_at, v.components, v.targets])).toEqual([
      ['vU', iso(T + 600 * MIN), ['API'], ['ref-messages', 'ref-broken']],
      ['vA', iso(T + 60 * MIN), ['Chat API'], ['ref-messages', 'ref-broken']],
    ]);
    expect(doc.vendor_incidents[1]).toMatchObject({ shortlink: 'https://stspg.io/vA', impact: 'major', resolved_at: iso(T + 90 * MIN) });
    expect(doc.matches).toEqual([
      {
        page: PAGE,
        vendor_incident: 'vA',
        incident: seenFirst.id,
        target: 'ref-broken',
        prompt_variant: 'tiny',
        lead_ms: 14 * MIN,
        lead_minutes: 14,
        words: '14 min before the vendor posted it',
      },
    ]);
    expect(doc.unseen_by_probes).toEqual([{ page: PAGE, id: 'vU' }]);
    expect(doc.unposted_by_vendor).toEqual([unposted.id]);
    expect(doc.probe_incidents.map((p) => p.id).sort()).toEqual([seenFirst.id, unposted.id].sort());

    // One target's view; a target without a page compares nothing; bad parameters are refused.
    const broken = (await (
      await SELF.fetch(`http://observatory/api/v1/vendor-incidents?target=ref-broken&from=${T - 60 * MIN}&to=${T + 1_440 * MIN}`)
    ).json()) as VendorIncidentsDoc;
    expect([broken.matches.length, broken.unposted_by_vendor]).toEqual([1, []]);
    const chat = (await (await SELF.fetch('http://observatory/api/v1/vendor-incidents?target=ref-chat')).json()) as VendorIncidentsDoc;
    expect([chat.pages, chat.vendor_incidents, chat.matches]).toEqual([[], [], []]);
    for (const bad of ['target=nope', 'limit=0', 'windows=7d', 'window=7d&window=8d'])
      expect((await SELF.fetch(`http://observatory/api/v1/vendor-incidents?${bad}`)).status, bad).toBe(400);
  });
});
