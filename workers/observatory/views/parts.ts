/** Every part of the public views, in the order a build runs them: health last, so it tells the others' ages. */
import type { ViewAges } from './manifest.ts';
import { burstViews } from './burst-views.ts';
import { metricsViews } from './metrics-views.ts';
import { percentileViews } from './percentile-views.ts';
import { profileViews } from './profile-views.ts';
import { catalogViews, healthViews, statusViews } from './status-views.ts';
import { timelineViews } from './timeline-views.ts';
import { historyViews } from './history-views.ts';
import { incidentViews } from './incident-views.ts';
import { vendorIncidentViews } from './vendor-views.ts';
import { compareDayViews, compareViews } from './compare-views.ts';
import { promptCacheViews } from './prompt-cache-views.ts';
import { changeViews } from './change-views.ts';
import type { ViewPart } from './view-part.ts';

export function viewParts(ages: (now: number) => Promise<ViewAges>): ViewPart[] {
  return [
    statusViews,
    percentileViews,
    catalogViews,
    profileViews,
    timelineViews,
    burstViews,
    metricsViews,
    historyViews,
    incidentViews,
    vendorIncidentViews,
    compareViews,
    compareDayViews,
    promptCacheViews,
    changeViews,
    healthViews(ages),
  ];
}
/** The parts' names and routes (their builders need no object): what the read API's view gate reads. */
export const VIEW_PARTS: readonly ViewPart[] = viewParts(async () => ({}));
export type { ViewPartName } from './part-names.ts';
