/** The status keeper's verdict now (GET /api/v1/status, from its view), and the concurrency probes' report (its view). */
import type { BurstsDoc, StatusDoc } from '../../../../shared/api-types.ts';
import type { SitePart } from './part.ts';

export const statusPart: SitePart = {
  name: 'status',
  async collect({ api }) {
    const status = await api.view('status', 'status').as<StatusDoc>();
    const bursts = await api.view('bursts', 'bursts').as<BurstsDoc>();
    return { status, bursts: { schedule: bursts.schedule, levels: bursts.levels, runs: bursts.runs, reports: bursts.reports } };
  },
  empty() {
    return { status: null, bursts: null };
  },
  fallback: { status: null, bursts: null },
};
