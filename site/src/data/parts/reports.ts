/**
 * The weekly comparison reports (GET /api/v1/reports and each version, from R2: no D1 row): the newest
 * SITE_REPORT_WEEKS weeks with every version in full, for the /reports/ pages and the feed. Older weeks stay in
 * the API's index (the reports page links it).
 */
import type { ReportIndexAnswer, WeeklyReport } from '../../../../shared/reports/report.ts';
import { SITE_REPORT_WEEKS } from '../../../../shared/config/unit-costs.ts';
import type { SiteReportWeek } from '../types.ts';
import type { SitePart } from './part.ts';

export const reportsPart: SitePart = {
  name: 'reports',
  async collect({ api }) {
    const index = await api.view('reports', 'reports').as<ReportIndexAnswer>();
    const reports: SiteReportWeek[] = [];
    for (const w of index.weeks.slice(0, SITE_REPORT_WEEKS)) {
      const versions = [];
      for (const v of w.versions)
        versions.push({
          ...v,
          report: await api
            .view(`report ${w.week} v${v.version}`, 'reportVersion', {}, { week: w.week, version: `v${v.version}` })
            .as<WeeklyReport>(),
        });
      reports.push({ week: w.week, window: w.window, versions });
    }
    return { reports };
  },
  empty() {
    return { reports: [] };
  },
  fallback: { reports: [] },
};
