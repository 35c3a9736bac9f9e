/**
 * The status family's public views at the free-plan goal's scale (6 regions × 10 targets, one prompt variant), as
 * the view builder stores them (views/history-views.ts, incident-views.ts): made by the routes' own document
 * functions and written as view text, for bench/duties.ts to measure what serving one narrowed costs.
 */
import type { Incident } from '../shared/status/incidents.ts';
import { viewText } from '../shared/views/view-text.ts';
import type { StatusHistoryRowDoc } from '../shared/api-types.ts';
import { statusHistoryDocument } from '../workers/observatory/api/status-history-docs.ts';
import { incidentsDocument } from '../workers/observatory/api/incident-docs.ts';
import { HISTORY_LIST, INCIDENT_LIST } from '../workers/observatory/views/status-lists.ts';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../shared/time.ts';
import { LONGEST_VIEW_DAYS } from '../shared/views/windows.ts';

const HOUR = HOUR_MS;
const DAY = DAY_MS;
const TICK = 5 * MINUTE_MS;
/** Incidents each target opens a week, and the points each keeps (its affected regions' probes while open). */
const INCIDENTS_A_WEEK = 2;
const POINTS_EACH = 100;

type StoredHistoryRow = Omit<StatusHistoryRowDoc, 'hour' | 'day'> & { period: number };
/** An element with its keys first, as the view builder writes it (views/view-part.ts keysFirst). */
const keysFirst = <T extends object>(item: T, keys: readonly string[]): T =>
  Object.assign(Object.fromEntries(keys.map((k) => [k, (item as Record<string, unknown>)[k]])), item) as T;

/** A period's rows of every region × target, counts of a 5-minute tick and a note now and then. */
function historyRows(regions: readonly string[], targets: readonly string[], periods: number, unit: number, end: number) {
  const perPeriod = unit / TICK;
  const rows: StoredHistoryRow[] = [];
  for (let p = periods; p >= 1; p--)
    for (const target of targets)
      for (const region of regions) {
        const bad = (p + target.length + region.length) % 11 === 0;
        rows.push({
          period: end - p * unit,
          target,
          prompt_variant: 'chat',
          region,
          operational: perPeriod - (bad ? 4 : 0),
          degraded: bad ? 3 : 0,
          down: bad ? 1 : 0,
          maintenance: 0,
          no_data: 0,
          late: 0,
          note: bad ? 'TTFT p99 ≥ 2,400 ms (95 % lower bound, n=15) against 1,650 ms, 1.5× the baseline p99 of 1,100 ms' : null,
        });
      }
  return rows;
}

/** The 90 days of days whole (5,400 lines at the goal), one target's split view of them, and 24 hours of hours. */
export function historyViewTexts(regions: readonly string[], targets: readonly string[], end: number) {
  const days = historyRows(regions, targets, LONGEST_VIEW_DAYS, DAY, end);
  const hours = historyRows(regions, targets, 24, HOUR, end);
  const text = (resolution: 'hour' | 'day', rows: StoredHistoryRow[]) => {
    const doc = statusHistoryDocument(resolution, rows[0].period, end, rows, null);
    return viewText({ ...doc, rows: doc.rows.map((r) => keysFirst(r, HISTORY_LIST.keys)) }, HISTORY_LIST);
  };
  return {
    days: text('day', days),
    oneTarget: text(
      'day',
      days.filter((r) => r.target === targets[2]),
    ),
    hours: text('hour', hours),
  };
}

/** The incidents with their points over 90 days: INCIDENTS_A_WEEK a target, each in two regions with POINTS_EACH points. */
export function incidentViewText(regions: readonly string[], targets: readonly string[], end: number): string {
  const incidents: Incident[] = [];
  const each = Math.round((90 / 7) * INCIDENTS_A_WEEK);
  for (let k = 0; k < each; k++)
    for (const [t, target] of targets.entries()) {
      const opened = end - ((k + t / targets.length) * LONGEST_VIEW_DAYS * DAY) / each;
      const hit = [regions[k % regions.length], regions[(k + 1) % regions.length]];
      incidents.push({
        id: `${opened}-${target}-chat`,
        target,
        variant: 'chat',
        status: k === 0 && t === 0 ? 'open' : 'resolved',
        severity: 'degraded',
        scope: 'regional',
        regions: hit,
        rules: ['ttft'],
        opened_at: opened,
        updated_at: opened + HOUR,
        resolved_at: k === 0 && t === 0 ? null : opened + HOUR,
        timeline: [
          {
            seq: 0,
            at: opened,
            kind: 'opened',
            severity: 'degraded',
            scope: 'regional',
            regions: hit.map((region) => ({ region, state: 'degraded', fired: [], shift: null })),
            summary: `${target}: degraded (regional problem in ${hit.join(', ')})`,
          },
        ],
        points: Array.from({ length: POINTS_EACH }, (_, i) => ({
          t: opened + (i >> 1) * TICK,
          region: hit[i % 2],
          ttft_ms: 1_200 + ((i * 37) % 900),
          error: i % 17 === 0,
          baseline: 1_100,
          threshold: 1_650,
        })),
      });
    }
  incidents.sort((a, b) => b.opened_at - a.opened_at || a.id.localeCompare(b.id));
  const doc = incidentsDocument({ from: end - 90 * DAY, to: end }, incidents);
  return viewText({ ...doc, incidents: doc.incidents.map((i) => keysFirst(i, INCIDENT_LIST.keys)) }, INCIDENT_LIST);
}
