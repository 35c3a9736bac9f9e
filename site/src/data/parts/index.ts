/** The site's parts, in the order collect.ts, empty.ts and load.ts run them (a part may read what earlier ones filled). */
import { archivePart } from './archive.ts';
import { catalogPart } from './catalog.ts';
import { comparisonsPart } from './comparisons.ts';
import { historyPart } from './history.ts';
import { incidentsPart } from './incidents.ts';
import type { SitePart } from './part.ts';
import { placesPart } from './places.ts';
import { reportsPart } from './reports.ts';
import { profilesPart } from './profiles.ts';
import { samplesPart } from './samples.ts';
import { statusPart } from './status.ts';
import { windowsPart } from './windows.ts';

export const SITE_PARTS: readonly SitePart[] = [
  catalogPart,
  windowsPart,
  samplesPart,
  placesPart,
  statusPart,
  incidentsPart,
  comparisonsPart,
  profilesPart,
  historyPart,
  archivePart,
  reportsPart,
];
