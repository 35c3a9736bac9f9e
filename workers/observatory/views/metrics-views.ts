/**
 * The scrape's views: GET /metrics's Prometheus text of every region's running totals, and of each region's alone
 * (`?region=weur`, one scrape job a region), each served whole as the ready text. A scrape of several regions
 * (`region=weur,enam`) goes to the live path.
 */
import { getConfig } from '../config.ts';
import { metricsRegions, metricsText } from '../api/metrics.ts';
import { PROMETHEUS_CONTENT_TYPE } from '../api/prometheus.ts';
import { onlyParams, type BuiltView, type ViewMatcher, type ViewPart } from './view-part.ts';

export const metricsViewName = (region?: string) => (region ? `metrics/${region}` : 'metrics');

const matchMetrics: ViewMatcher = (q) => {
  if (!onlyParams(q, ['region'])) return null;
  const regions = metricsRegions(q);
  if (!regions) return { view: metricsViewName() };
  return regions.length === 1 ? { view: metricsViewName(regions[0]) } : null;
};

export const metricsViews: ViewPart = {
  name: 'metrics',
  settle: 'rollups',
  routes: { '/metrics': matchMetrics },
  async build({ db }) {
    const views: BuiltView[] = [];
    for (const region of [undefined, ...getConfig().regions.map((r) => r.code)])
      views.push({
        name: metricsViewName(region),
        text: await metricsText(db, region ? [region] : undefined),
        contentType: PROMETHEUS_CONTENT_TYPE,
      });
    return views;
  },
};
