/**
 * Vendor status pages, the pure parts: reading a Statuspage incidents list into bounded fields, one bounded
 * poll against a loopback Statuspage (every fault a clear error, every bound exact), matching vendor incidents
 * with the probes' (the detection lead, and what has no partner), the configuration's checks and the costs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { startStatuspageServer, type StatuspageServer } from '../../helpers/statuspage-server.ts';
import { craftedIncidentsList, realisticIncidentsList, statuspageIncident } from '../../helpers/statuspage-fixtures.ts';
import {
  incidentFingerprint,
  parseIncidents,
  parseIncidentsBody,
  StatuspageFormatError,
  StatuspageTooLargeError,
  VENDOR_BODY_MAX_BYTES,
  VENDOR_COMPONENTS_PER_INCIDENT,
  VENDOR_INCIDENTS_PER_POLL,
  VENDOR_MAX_LISTED_COMPONENTS,
  VENDOR_MAX_LISTED_ENTRIES,
  VENDOR_MAX_LISTED_INCIDENTS,
  VENDOR_MAX_LISTED_UPDATES,
  VENDOR_TEXT_MAX_CHARS,
  VENDOR_UPDATES_PER_INCIDENT,
} from '../../../shared/status/statuspage.ts';
import { pollStatuspage, type PollOutcome, type Validators } from '../../../shared/status/statuspage-poll.ts';
import {
  compareWithVendors,
  leadWords,
  VENDOR_MATCH_SLACK_MS,
  type PagedVendorIncident,
  type ProbeIncidentSpan,
} from '../../../shared/status/vendor-incidents.ts';
import { statusPageProblems, MAX_STATUS_PAGES } from '../../../shared/config/validate-vendor-status.ts';
import { vendorStatusCosts } from '../../../shared/config/vendor-status-costs.ts';
import { capacity } from '../../../shared/config/capacity.ts';
import { config } from '../../../observatory.config.ts';
import type { TargetConfig } from '../../../shared/config/types.ts';

const MIN = 60_000;
const DAY = 24 * 60 * MIN;
const T0 = Date.UTC(2026, 10, 3, 12, 0);
const iso = (t: number) => new Date(t).toISOString();
const FIXTURE = JSON.parse(readFileSync(new URL('../../fixtures/statuspage/incidents.json', import.meta.url), 'utf8'));

describe('a Statuspage incidents list', () => {
  it('reads the documented format into the fields kept (the recorded shape in tests/fixtures/statuspage)', () => {
    const { incidents, listed, skipped } = parseIncidents(FIXTURE);
    expect([listed, skipped, incidents.length]).toEqual([2, 0, 2]);
    // Newest first.
    expect(incidents[0]).toEqual({
      id: 'n4njzfn1mqy0',
      name: 'Messaging issues',
      impact: 'minor',
      status: 'resolved',
      components: ['API'],
      created_at: Date.parse('2022-02-15T21:14:17.744Z'),
      started_at: Date.parse('2022-02-15T21:14:17.737Z'),
      resolved_at: Date.parse('2022-02-15T21:37:37.388Z'),
      updated_at: Date.parse('2022-02-15T21:37:37.404Z'),
      updates: [{ status: 'investigating', at: Date.parse('2022-02-15T21:14:17.849Z') }],
      shortlink: 'https://stspg.io/y1w39cblgvhz',
    });
    // An older one without started_at, components or updates keeps what it has.
    expect(incidents[1]).toEqual({
      id: 'tks5n8x7w24h',
      name: 'Planned database migration',
      impact: 'none',
      status: 'completed',
      components: [],
      created_at: Date.parse('2013-04-21T17:45:33Z'),
      started_at: null,
      resolved_at: null,
      updated_at: Date.parse('2013-04-21T17:45:33Z'),
      updates: [],
      shortlink: null,
    });
  });

  it('keeps the newest VENDOR_INCIDENTS_PER_POLL, exactly, and skips entries without an id or a time', () => {
    const many = Array.from({ length: 120 }, (_, i) => statuspageIncident({ id: `i${i}`, created: iso(T0 + i * MIN) }));
    const parsed = parseIncidents({ incidents: [...many, { name: 'no id', created_at: iso(T0) }, { id: 'x1', created_at: 'soon' }] });
    expect(parsed.listed).toBe(122);
    expect(parsed.skipped).toBe(2);
    expect(parsed.incidents).toHaveLength(VENDOR_INCIDENTS_PER_POLL);
    expect(parsed.incidents[0].id).toBe('i119');
    expect(parsed.incidents.at(-1)!.id).toBe(`i${120 - VENDOR_INCIDENTS_PER_POLL}`);
  });

  it('bounds what it publishes: names, links, levels, updates, components', () => {
    const updates = Array.from({ length: 30 }, (_, i): [string, string] => [i === 29 ? 'resolved' : 'monitoring', iso(T0 + i * MIN)]);
    const raw = {
      ...statuspageIncident({
        id: 'b1',
        created: iso(T0),
        updates,
        components: Array.from({ length: 40 }, (_, i) => `c${i}`),
      }),
      name: `Bad\u0000 name\n\t${'é'.repeat(500)}\u{1F525}`,
      impact: 'catastrophic',
      status: 'Investigating<script>',
      shortlink: 'javascript:alert(1)',
    };
    const [i] = parseIncidents({ incidents: [raw] }).incidents;
    expect(i.name.startsWith('Bad name éé')).toBe(true);
    expect([...i.name]).toHaveLength(VENDOR_TEXT_MAX_CHARS);
    expect(i.impact).toBe('unknown');
    expect(i.status).toBe('unknown');
    expect(i.shortlink).toBeNull();
    expect(i.components).toHaveLength(20);
    expect(i.updates).toHaveLength(VENDOR_UPDATES_PER_INCIDENT);
    // The first ones (how it was posted) and the last (how it ended).
    expect(i.updates[0].at).toBe(T0);
    expect(i.updates.at(-1)).toEqual({ status: 'resolved', at: T0 + 29 * MIN });
  });

  it("reads a busy vendor's page as large as real ones run (530 KB): every incident, update and component kept", () => {
    const body = new TextEncoder().encode(JSON.stringify(realisticIncidentsList()));
    expect(Math.round(body.byteLength / 1_000)).toBe(530);
    const { incidents, listed, skipped } = parseIncidentsBody(body);
    expect([listed, skipped, incidents.length]).toEqual([50, 0, 50]);
    expect(incidents.every((i) => i.updates.length === 6 && i.components.length === 6)).toBe(true);
  });

  const bytesOf = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
  const tooLarge = (v: unknown) => {
    try {
      parseIncidentsBody(bytesOf(v));
    } catch (e) {
      if (e instanceof StatuspageTooLargeError) return e.message;
      throw e;
    }
    return null;
  };

  it('refuses the crafted bodies within the byte cap that cost the most to read, by their counts, before reading an entry', () => {
    const tiny = craftedIncidentsList.tinyIncidents(VENDOR_BODY_MAX_BYTES);
    const updates = craftedIncidentsList.manyUpdates(VENDOR_BODY_MAX_BYTES);
    const components = craftedIncidentsList.manyComponents(VENDOR_BODY_MAX_BYTES);
    for (const body of [tiny, updates, components]) expect(bytesOf(body).byteLength).toBeLessThanOrEqual(VENDOR_BODY_MAX_BYTES);
    expect(tiny.incidents.length).toBeGreaterThan(15_000);
    expect(tooLarge(tiny)).toBe(`it lists ${tiny.incidents.length.toLocaleString('en-US')} incidents, over the 250 read at most`);
    expect(tooLarge(updates)).toMatch(/^its incident #1 lists 1[0-9],\d{3} updates, over the 500 read at most$/);
    expect(tooLarge(components)).toMatch(/^its incident #1 lists [\d,]+ components, over the 500 read at most$/);
  });

  it('reads a body at every count cap, and refuses it one entry past any', () => {
    const incident = (i: number, o: { updates?: number; components?: number; affected?: number } = {}) => ({
      id: `k${i}`,
      created_at: iso(T0 + i * MIN),
      components: Array.from({ length: o.components ?? 0 }, (_, c) => ({ name: `c${c}` })),
      incident_updates: Array.from({ length: o.updates ?? 0 }, (_, u) => ({
        status: 'monitoring',
        display_at: iso(T0 + u * MIN),
        affected_components: Array.from({ length: o.affected ?? 0 }, (_, c) => ({ name: `a${c}` })),
      })),
    });
    const list = (n: number, o?: Parameters<typeof incident>[1]) => ({ incidents: Array.from({ length: n }, (_, i) => incident(i, o)) });
    const atCaps: Array<[string, unknown, unknown]> = [
      ['incidents', list(VENDOR_MAX_LISTED_INCIDENTS), list(VENDOR_MAX_LISTED_INCIDENTS + 1)],
      ['updates', list(1, { updates: VENDOR_MAX_LISTED_UPDATES }), list(1, { updates: VENDOR_MAX_LISTED_UPDATES + 1 })],
      ['components', list(1, { components: VENDOR_MAX_LISTED_COMPONENTS }), list(1, { components: VENDOR_MAX_LISTED_COMPONENTS + 1 })],
      [
        'affected components',
        list(1, { updates: 1, affected: VENDOR_MAX_LISTED_COMPONENTS }),
        list(1, { updates: 1, affected: VENDOR_MAX_LISTED_COMPONENTS + 1 }),
      ],
      // All lists together: 40 incidents of 499 updates each is 20,000 entries; one component more passes the cap.
      [
        'entries',
        list(40, { updates: 499 }),
        { incidents: [...list(39, { updates: 499 }).incidents, incident(39, { updates: 499, components: 1 })] },
      ],
    ];
    for (const [what, at, past] of atCaps) {
      expect(tooLarge(at), `${what} at the cap`).toBeNull();
      expect(tooLarge(past), `${what} past the cap`).not.toBeNull();
    }
    expect(40 * (1 + 499)).toBe(VENDOR_MAX_LISTED_ENTRIES);
    expect(tooLarge(atCaps[4][2])).toBe(
      'its lists hold more than 20,000 entries in all (incidents, updates and components), the most read',
    );
  });

  it('reads only the incidents it keeps: a list at the cap costs what its newest VENDOR_INCIDENTS_PER_POLL do', () => {
    // Every incident with its components' cap of distinct names: only the kept ones' are read, and those only up to the names kept.
    const body = craftedIncidentsList.underCaps(
      VENDOR_BODY_MAX_BYTES,
      { incidents: VENDOR_MAX_LISTED_INCIDENTS, perList: VENDOR_MAX_LISTED_COMPONENTS, entries: VENDOR_MAX_LISTED_ENTRIES },
      'components',
    );
    expect(tooLarge(body)).toBeNull();
    const { incidents, listed } = parseIncidentsBody(bytesOf(body));
    expect([listed, incidents.length]).toEqual([VENDOR_MAX_LISTED_INCIDENTS, VENDOR_INCIDENTS_PER_POLL]);
    expect(incidents.every((i) => i.components.length === VENDOR_COMPONENTS_PER_INCIDENT)).toBe(true);
  });

  it('refuses what is not an incidents list', () => {
    for (const body of [null, [], { incidents: {} }, { page: {} }, 'incidents'])
      expect(() => parseIncidents(body), JSON.stringify(body)).toThrow(StatuspageFormatError);
  });

  it('fingerprints what is kept: the same fields the same, an added update another', () => {
    const a = parseIncidents({ incidents: [statuspageIncident({ id: 'f1', created: iso(T0) })] }).incidents[0];
    const b = parseIncidents({
      incidents: [
        statuspageIncident({
          id: 'f1',
          created: iso(T0),
          updates: [
            ['investigating', iso(T0)],
            ['identified', iso(T0 + MIN)],
          ],
        }),
      ],
    }).incidents[0];
    expect(incidentFingerprint(a)).toBe(incidentFingerprint({ ...a }));
    expect(incidentFingerprint(a)).not.toBe(incidentFingerprint(b));
  });
});

describe('one poll of a Statuspage on loopback', () => {
  let server: StatuspageServer;
  beforeAll(async () => {
    server = await startStatuspageServer();
  });
  afterAll(() => server.close());
  const none: Validators = { etag: null, lastModified: null };
  const poll = (page: string, limits = { timeoutMs: 2_000, maxBytes: 64 * 1024 }, validators = none) =>
    pollStatuspage(`${server.url}/${page}`, validators, fetch, limits);
  const failure = (o: PollOutcome) => (o.kind === 'failed' ? o.failure : o.kind);

  it('fetches the list with its validators, then asks conditionally and gets 304', async () => {
    server.set('ok', {
      mode: 'incidents',
      incidents: [statuspageIncident({ id: 'o1', created: iso(T0) })],
      etag: '"v1"',
      lastModified: 'Tue, 03 Nov 2026 12:00:00 GMT',
    });
    const first = await poll('ok');
    expect(first).toMatchObject({ kind: 'fetched', listed: 1, etag: '"v1"', lastModified: 'Tue, 03 Nov 2026 12:00:00 GMT' });
    const again = await poll('ok', undefined, { etag: '"v1"', lastModified: 'Tue, 03 Nov 2026 12:00:00 GMT' });
    expect(again).toEqual({ kind: 'unchanged' });
    expect(server.hits('ok').map((h) => [h.ifNoneMatch, h.answered])).toEqual([
      [null, 200],
      ['"v1"', 304],
    ]);
    expect(server.hits('ok')[1].ifModifiedSince).toBe('Tue, 03 Nov 2026 12:00:00 GMT');
  });

  it('reads a body of exactly the cap, and stops one byte past it (streamed, or declared)', async () => {
    const cap = 4_096;
    server.set('at-cap', { mode: 'huge', bytes: cap });
    server.set('past-cap', { mode: 'huge', bytes: cap + 1 });
    server.set('declared', { mode: 'huge', bytes: 10 * 1024 * 1024, declareLength: true });
    server.set('huge', { mode: 'huge', bytes: 20 * 1024 * 1024 });
    const limits = { timeoutMs: 5_000, maxBytes: cap };
    expect(await poll('at-cap', limits)).toMatchObject({ kind: 'fetched', listed: 0 });
    const past = await poll('past-cap', limits);
    expect(past).toMatchObject({ kind: 'failed', failure: 'too_large' });
    expect(past.kind === 'failed' && past.error).toContain('4,096 bytes');
    expect(await poll('declared', limits)).toMatchObject({
      kind: 'failed',
      failure: 'too_large',
      error: expect.stringContaining('10,485,760'),
    });
    // 20 MiB on offer: the poll lets go after its cap, it does not download the rest.
    const started = Date.now();
    expect(failure(await poll('huge', limits))).toBe('too_large');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('gives up on a slow answer or a trickling body at the timeout, and says which', async () => {
    server.set('slow-headers', { mode: 'slow-headers', delayMs: 10_000 });
    server.set('slow-body', { mode: 'slow-body', delayMs: 10_000 });
    const limits = { timeoutMs: 300, maxBytes: 64 * 1024 };
    const started = Date.now();
    const [headers, body] = await Promise.all([poll('slow-headers', limits), poll('slow-body', limits)]);
    expect(headers).toMatchObject({ kind: 'failed', failure: 'timeout', error: 'no answer within 0.3 s' });
    expect(body).toMatchObject({ kind: 'failed', failure: 'timeout', error: 'its body did not arrive within 0.3 s' });
    // Bounded by the timeout, not by the server's 10 s (a generous margin for a busy machine).
    expect(Date.now() - started).toBeLessThan(8_000);
  });

  it('names malformed JSON, an HTTP error and an unreachable page; an empty list is no error', async () => {
    server.set('malformed', { mode: 'malformed' });
    server.set('down', { mode: 'status', status: 503 });
    server.set('empty', { mode: 'incidents', incidents: [] });
    expect(await poll('malformed')).toMatchObject({
      kind: 'failed',
      failure: 'malformed',
      error: expect.stringMatching(/^its body is not JSON/),
    });
    expect(await poll('down')).toMatchObject({ kind: 'failed', failure: 'http', error: expect.stringMatching(/^answered HTTP 503/) });
    expect(await poll('never-set')).toMatchObject({ kind: 'failed', failure: 'http' });
    expect(await pollStatuspage('http://127.0.0.1:9', none, fetch, { timeoutMs: 2_000, maxBytes: 1_000 })).toMatchObject({
      kind: 'failed',
      failure: 'unreachable',
    });
    expect(await poll('empty')).toMatchObject({ kind: 'fetched', listed: 0 });
  });

  it('names a body past a count cap too_large, not read', async () => {
    server.set('crafted', { mode: 'incidents', incidents: craftedIncidentsList.tinyIncidents(VENDOR_BODY_MAX_BYTES - 1_024).incidents });
    expect(await poll('crafted', { timeoutMs: 5_000, maxBytes: VENDOR_BODY_MAX_BYTES })).toMatchObject({
      kind: 'failed',
      failure: 'too_large',
      error: expect.stringMatching(/^it lists [\d,]+ incidents, over the 250 read at most; not read$/),
    });
  });
});

describe('vendor incidents against the probes', () => {
  const PAGE = 'https://status.example.com';
  const pages = [{ page: PAGE, targets: ['a', 'b'], watched_since: T0 }];
  const vendor = (id: string, created: number, over: Partial<PagedVendorIncident> = {}): PagedVendorIncident => ({
    page: PAGE,
    id,
    name: id,
    impact: 'major',
    status: 'resolved',
    components: [],
    created_at: created,
    started_at: null,
    resolved_at: created + 30 * MIN,
    updated_at: created + 30 * MIN,
    updates: [],
    shortlink: null,
    ...over,
  });
  const probe = (id: string, target: string, opened: number, resolved: number | null = opened + 20 * MIN): ProbeIncidentSpan => ({
    id,
    target,
    variant: 'chat',
    opened_at: opened,
    resolved_at: resolved,
  });

  it.each([
    // [what, vendor created (min after T0), probe opened, probe resolved, expected lead (min) or null: no match]
    ['the probes first, by 14 min', 60, 46, 80, 14],
    ['the vendor first, by 5 min', 60, 65, 90, -5],
    ['apart by exactly the slack: one event', 60, 60 + 30 + 120, 60 + 30 + 150, -(30 + 120)],
    ['apart by a minute more than the slack: two', 60, 60 + 30 + 121, 60 + 30 + 150, null],
    ['probe ended exactly the slack before', 200, 50, 200 - 120, 200 - 50],
  ] as const)('%s', (_, created, opened, resolved, lead) => {
    const r = compareWithVendors(
      [vendor('v', T0 + created * MIN)],
      [probe('p', 'a', T0 + opened * MIN, T0 + resolved * MIN)],
      pages,
      T0 + DAY,
    );
    if (lead === null) {
      expect(r.matches).toEqual([]);
      expect(r.unseen_by_probes).toEqual([{ page: PAGE, id: 'v' }]);
      expect(r.unposted_by_vendor).toEqual(['p']);
    } else {
      expect(r.matches).toEqual([{ page: PAGE, vendor_incident: 'v', incident: 'p', target: 'a', variant: 'chat', lead_ms: lead * MIN }]);
      expect([r.unseen_by_probes, r.unposted_by_vendor]).toEqual([[], []]);
    }
  });

  it('matches only targets naming the page, keeps open incidents open until now, and pairs many with many', () => {
    const r = compareWithVendors(
      [vendor('v1', T0 + 60 * MIN, { resolved_at: null, started_at: T0 + 40 * MIN }), vendor('v2', T0 + 600 * MIN)],
      [
        probe('pa', 'a', T0 + 50 * MIN),
        probe('pb', 'b', T0 + 300 * MIN, null),
        // Another target's incident at the same time: not this page's.
        probe('pc', 'c', T0 + 55 * MIN),
      ],
      pages,
      T0 + 700 * MIN,
    );
    expect(r.matches.map((m) => [m.vendor_incident, m.incident, m.lead_ms / MIN])).toEqual([
      ['v2', 'pb', 300],
      ['v1', 'pa', 10],
      ['v1', 'pb', -240],
    ]);
    expect(r.unposted_by_vendor).toEqual([]);
    expect(r.unseen_by_probes).toEqual([]);
  });

  it('lists what has no partner only from when the page was first polled', () => {
    const r = compareWithVendors(
      [vendor('old', T0 - 600 * MIN), vendor('new', T0 + 600 * MIN)],
      [probe('before', 'a', T0 - 300 * MIN), probe('after', 'b', T0 + 1_200 * MIN)],
      pages,
      T0 + DAY,
    );
    expect(r.unseen_by_probes).toEqual([{ page: PAGE, id: 'new' }]);
    expect(r.unposted_by_vendor).toEqual(['after']);
    // A page never polled successfully compares nothing.
    const never = compareWithVendors(
      [vendor('new', T0 + 600 * MIN)],
      [probe('after', 'a', T0 + 1_200 * MIN)],
      [{ ...pages[0], watched_since: null }],
      T0 + DAY,
    );
    expect([never.unseen_by_probes, never.unposted_by_vendor]).toEqual([[], []]);
  });

  it('says the lead in words', () => {
    expect(leadWords(14 * MIN)).toBe('14 min before the vendor posted it');
    expect(leadWords(-3 * MIN)).toBe('3 min after the vendor posted it');
    expect(leadWords(20_000)).toBe('within a minute of the vendor posting it');
    expect(leadWords(150 * MIN)).toBe('2.5 h before the vendor posted it');
    expect(VENDOR_MATCH_SLACK_MS).toBe(120 * MIN);
  });
});

describe('statusPage in the configuration', () => {
  const target = (id: string, statusPage: unknown) => ({ ...config.targets[0], id, statusPage }) as TargetConfig;
  it('takes an address or {VAR}, and says what is wrong with anything else', () => {
    expect(statusPageProblems([target('a', 'https://status.openai.com'), target('b', '{VENDOR_PAGE}'), target('c', undefined)])).toEqual(
      [],
    );
    expect(
      statusPageProblems([
        target('a', 'ftp://status.example.com'),
        target('b', 'https://status.example.com/api/v2/incidents.json'),
        target('c', 'https://user:pw@status.example.com'),
        target('d', 'status.example.com'),
        target('e', 'https://status.example.com/?key=1'),
        target('f', 42),
      ]),
    ).toEqual([
      'target "a": statusPage must be http or https',
      'target "b": statusPage must be the page\'s address (like https://status.example.com), without /api/v2/…: the poll adds /api/v2/incidents.json',
      'target "c": statusPage must not carry credentials',
      'target "d": statusPage "status.example.com" is not a URL (or {VAR})',
      'target "e": statusPage must be the page\'s address, without a query or fragment',
      'target "f": statusPage must be a URL string',
    ]);
    const many = Array.from({ length: MAX_STATUS_PAGES + 1 }, (_, i) => target(`t${i}`, `https://status${i}.example.com`));
    expect(statusPageProblems(many)).toEqual([
      `${MAX_STATUS_PAGES + 1} distinct statusPage values; at most ${MAX_STATUS_PAGES} (each is one subrequest of the poller's one alarm)`,
    ]);
  });

  it('costs nothing without a page, and a few rows a day with one', () => {
    expect(vendorStatusCosts(config)).toMatchObject({ pages: 0, d1RowsWrittenPerDay: 0, d1RowsReadPerDay: 0, siteBuildRequests: 0 });
    const withPage = { ...config, targets: config.targets.map((t) => ({ ...t, statusPage: 'https://status.example.com' })) };
    const c = vendorStatusCosts(withPage);
    // One page polled every 5 minutes: its state row read each poll; a busy vendor's 4 updates a day, each a changed incident
    // (its row and index entry) and the page's state, and the incident's retention delete.
    expect(c).toMatchObject({ pages: 1, pollsPerDay: 288, d1RowsReadPerDay: 288, d1RowsWrittenPerDay: 4 * 3 + 2, siteBuildRequests: 1 });
    // Each poll is the cron's hand-over to the poller and the poller's alarm (2 requests), and 3 of its storage rows
    // (the duty kept, its alarm, the duty removed); the cron makes one subrequest, the alarm one a page.
    expect(c).toMatchObject({
      doRequestsPerDay: 2 * 288,
      doRowsWrittenPerDay: 3 * 288,
      subrequestsPerCron: 1,
      subrequestsPerPollerAlarm: 1,
    });
    expect(capacity(withPage).d1RowsWrittenPerDay - capacity(config).d1RowsWrittenPerDay).toBe(c.d1RowsWrittenPerDay);
    expect(capacity(withPage).doRequestsPerDay - capacity(config).doRequestsPerDay).toBe(c.doRequestsPerDay);
    expect(capacity(withPage).doRowsWrittenPerDay - capacity(config).doRowsWrittenPerDay).toBe(c.doRowsWrittenPerDay);
    expect(capacity(withPage).siteBuildRequests - capacity(config).siteBuildRequests).toBe(1);
  });
});
