/** Status and incidents: GET /api/v1/status (from the status keeper) and GET /api/v1/incidents (from D1). */
import { paramsOf } from '../../../shared/api-contract/params.ts';
import type { StatusDoc } from '../../../shared/api-types.ts';
import { Hono } from 'hono';
import { findRegion, getConfig, targetLabel } from '../config.ts';
import { resolveStatusRules } from '../../../shared/status/rules.ts';
import { listIncidents } from '../db/status.ts';
import { INCIDENT_LIMIT, INCIDENTS_WINDOW, incidentFilter, incidentsDocument } from './incident-docs.ts';
import { onlyKnown, parseBoolean, parseIntParam, parseWindow } from './query.ts';
import type { KeeperStatus } from '../keeper/status-keeper.ts';

export const statusRoutes = new Hono<{ Bindings: Env }>();

function iso(t: number): string;
function iso(t: number | null): string | null;
function iso(t: number | null): string | null {
  return t === null ? null : new Date(t).toISOString();
}

export function statusDocument(s: KeeperStatus, now: number): StatusDoc {
  return {
    generated_at: iso(now),
    rules: resolveStatusRules(getConfig().status),
    targets: s.targets.map((t) => ({
      target: t.target,
      label: targetLabel(t.target),
      prompt_variant: t.variant,
      status: t.state,
      // A problem in fewer than half of its regions: the target is not degraded as a whole.
      regional_problems: t.regional,
      regions: t.regions.map(({ region }) => {
        const p = s.pairs.find((x) => x.region === region && x.target === t.target && x.variant === t.variant);
        return {
          region,
          region_label: findRegion(region)?.label ?? region,
          status: p?.state ?? 'no-data',
          since: iso(p?.since_tick ?? null),
          last_evaluated: iso(p?.last_tick ?? null),
          not_enough_data: p ? p.finding.level === null : true,
          recovering: p ? p.better_streak > 0 : false,
          evidence: p ? { rules: p.finding.rules, baseline: p.finding.baseline, split_shift: p.finding.shift } : null,
        };
      }),
    })),
    open_incidents: s.open_incidents.map((i) => ({
      id: i.id,
      target: i.target,
      prompt_variant: i.variant,
      severity: i.severity,
      scope: i.scope,
      regions: i.regions,
      rules: i.rules,
      opened_at: iso(i.opened_at),
      updated_at: iso(i.updated_at),
      summary: i.timeline.at(-1)!.summary,
    })),
  };
}

statusRoutes.get('/status', async (c) => {
  onlyKnown(new URL(c.req.url).searchParams, paramsOf('status'));
  const s = await c.env.STATUS_KEEPER.getByName('global').status();
  return c.json(statusDocument(s, Date.now()));
});

statusRoutes.get('/incidents', async (c) => {
  const q = new URL(c.req.url).searchParams;
  onlyKnown(q, paramsOf('incidents'));
  if (!q.has('window') && !q.has('from')) q.set('window', INCIDENTS_WINDOW);
  const w = parseWindow(q, Date.now());
  const incidents = await listIncidents(c.env.DB, {
    from: w.from,
    ...incidentFilter(q),
    limit: parseIntParam(q, 'limit', INCIDENT_LIMIT.fallback, 1, INCIDENT_LIMIT.most),
    withPoints: parseBoolean(q, 'points', false),
  });
  return c.json(incidentsDocument(w, incidents));
});
