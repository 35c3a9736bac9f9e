/**
 * The read API's answers, as types: the routes in workers/observatory/api/ build them (checked with
 * `satisfies`), and the report site reads them. Those the contract's schemas define whole
 * (shared/api-contract/schemas.ts) are derived from them; the rest are derived from the definitions they
 * report (the percentile list, the status rules, findings and incidents) and held to the schemas at compile
 * time (shared/api-contract/agree.ts), so neither side can drift from the other.
 */
import type { z } from '@hono/zod-openapi';
import type * as S from './api-contract/schemas.ts';
import type { LevelReport } from './bursts/level-report.ts';
import type { ErrorClass } from './ids.ts';
import type { PairedFigure } from './rollup/paired-hours.ts';
import type { CacheDiscount } from './rollup/cache-hours.ts';
import type { PairedResult } from './stats/paired.ts';
import type { PERCENTILE_NAMES } from './stats/percentile.ts';
import type { Finding } from './status/evaluate.ts';
import type { Incident, IncidentEvent, IncidentRegion } from './status/incidents.ts';
import type { PairStatus } from './status/pair-state.ts';
import type { FidelityRow, ServedPlaceRow } from './rollup/hour-places.ts';
import type { StatusRules } from './status/rules.ts';

export type ApiWindow = z.infer<typeof S.WindowSchema>;

/** GET /api/v1/regions: one configured region, and what it has sampled in the window. */
export type RegionInfo = z.infer<typeof S.RegionInfoSchema>;

/** GET /api/v1/targets: one configured target, and what it has sampled in the window. */
export type TargetInfo = z.infer<typeof S.TargetInfoSchema>;
export type TargetPrice = z.infer<typeof S.TargetPriceSchema>;

/** A prompt variant as GET /api/v1/health lists it. */
export type PromptVariantInfo = z.infer<typeof S.PromptVariantInfoSchema>;

export type PercentileName = (typeof PERCENTILE_NAMES)[number];

/** Each percentile with its 95 % interval: p50, p50_ci_low, p50_ci_high, … for every name in PERCENTILE_NAMES. */
export type PercentileFields = {
  [K in PercentileName | `${PercentileName}_ci_low` | `${PercentileName}_ci_high`]: number | null;
};

/** One row of GET /api/v1/percentiles: a group's key (the columns it is grouped by), counts and percentiles. */
export interface PercentileGroup extends PercentileFields {
  region?: string;
  target?: string;
  prompt_variant?: string;
  /** Present for the split's parts, which the API never pools across sources. */
  split_source?: string | null;
  /** Present with by=served_by: where the vendor answered (null: it did not say). */
  served_by?: string | null;
  n: number;
  samples: number;
  errors: number;
  error_rate: number | null;
}

/** A region × target pair's state in GET /api/v1/status. */
export type PairStatusName = PairStatus;

/** One region × target's status (GET /api/v1/status). */
export interface RegionStatus {
  region: string;
  region_label: string;
  status: PairStatusName;
  since: string | null;
  last_evaluated: string | null;
  not_enough_data: boolean;
  recovering: boolean;
  evidence: { rules: Finding['rules']; baseline: Finding['baseline']; split_shift: Finding['shift'] } | null;
}

/** GET /api/v1/status. */
export interface StatusDoc {
  generated_at: string;
  rules: StatusRules;
  targets: Array<{
    target: string;
    label: string;
    prompt_variant: string;
    status: PairStatusName;
    regional_problems: Array<{ region: string; state: PairStatusName }>;
    regions: RegionStatus[];
  }>;
  open_incidents: Array<
    Pick<Incident, 'id' | 'target' | 'severity' | 'scope' | 'regions' | 'rules'> & {
      prompt_variant: string;
      opened_at: string;
      updated_at: string;
      summary: string;
    }
  >;
}

/** One incident of GET /api/v1/incidents: times as ISO strings, each region's state in words. */
export interface IncidentDoc extends Omit<Incident, 'opened_at' | 'updated_at' | 'resolved_at' | 'timeline' | 'points'> {
  target_label: string;
  opened_at: string;
  updated_at: string;
  resolved_at: string | null;
  timeline: Array<Omit<IncidentEvent, 'at' | 'regions'> & { at: string; regions: Array<IncidentRegion & { words: string }> }>;
  /** Present with `points=true`. */
  points?: Incident['points'];
}

/**
 * One period of the timeline (shared/rollup/timeline.ts) for one region × target × prompt variant (region '*': its
 * regions merged): its probes, its failures by error class and TTFT p50/p95 from the rollups' histograms. The site
 * draws these (its windows' `history` and `target_history`).
 */
export interface TimelinePoint {
  region: string;
  target: string;
  prompt_variant: string;
  /** The period's start (ISO): an hour, or a UTC day (today's so far: its ended hours). */
  start: string;
  probes: number;
  failures: number;
  /** Failures per error class. */
  errors: Partial<Record<ErrorClass, number>>;
  ttft_p50: number | null;
  ttft_p95: number | null;
}

/** The key of a timeline's series, first in each (the public views narrow their lines by it). */
export type TimelineKey = 'region' | 'target' | 'prompt_variant';

/** One series of GET /api/v1/timeline: a region × target × variant's periods (those with probes), oldest first. */
export type TimelineSeries = Pick<TimelinePoint, TimelineKey> & { points: Array<Omit<TimelinePoint, TimelineKey>> };

/** GET /api/v1/timeline. */
export interface TimelineDoc {
  /** The whole hours it covers. */
  window: ApiWindow;
  /** Its points' period: an hour for a window of a day or less, a UTC day beyond. */
  resolution: 'hour' | 'day';
  /** Per target × variant, its regions merged (region '*'), rather than per region. */
  pooled: boolean;
  method_version: number;
  method: string;
  relative_error: number;
  /** In the order of region, target, variant. */
  series: TimelineSeries[];
}

/** GET /api/v1/bursts (without `streams`). */
export interface BurstsDoc {
  schedule: string | null;
  levels: number[];
  /** The runs the report covers (ISO times): the newest `runs`, whichever regions and targets it is narrowed to, or every run of a window. */
  runs: string[];
  method: string;
  reports: Array<{ region: string; target: string; prompt_variant: string; levels: LevelReport[] }>;
}

/** One paired comparison of GET /api/v1/compare: A against B in a region and variant (shared/stats/paired.ts). */
export interface ComparisonDoc extends PairedResult {
  region: string;
  prompt_variant: string;
  a: string;
  b: string;
}

/** GET /api/v1/compare. */
export interface CompareDoc {
  window: ApiWindow;
  figure: PairedFigure;
  margin_pct: number;
  method: string;
  comparisons: ComparisonDoc[];
}

/** One target's prompt cache in a region (MEASUREMENT.md, "Prompt cache"): its discount on TTFT and on server time, and what the provider reported. */
export interface PromptCacheDoc {
  region: string;
  target: string;
  /** The prompt-cache variant (its first pass's id; the second passes are `<id>-warm`). */
  prompt_variant: string;
  ttft: CacheDiscount;
  server: CacheDiscount;
  /** Second passes whose provider reported cached tokens, those that reported more than none, and the mean it reported. */
  cached_tokens: { reported: number; hits: number; hit_rate: number | null; mean: number | null };
}

/** GET /api/v1/prompt-cache. */
export interface PromptCachesDoc {
  window: ApiWindow;
  margin_pct: number;
  method: string;
  caches: PromptCacheDoc[];
}

/** A series whose time to the first answer token changed this week (shared/rollup/changes.ts ttfaChanges). */
export interface ChangeFlag {
  region: string;
  target: string;
  prompt_variant: string;
  /** This week's median TTFA (over its samples), the samples, and the days whose medians were compared; the four weeks before. */
  now: { p50: number; n: number; days: number };
  before: { p50: number; n: number; days: number };
  /** The shift of the daily medians, now against before, in percent (100·(e^shift − 1)), and its 95 % interval. */
  change_pct: number;
  change_low_pct: number;
  change_high_pct: number;
  direction: 'slower' | 'faster';
  /** The two weeks' windows (ISO). */
  window: { from: string; split: string; to: string };
}

/** GET /api/v1/changes: the TTFA changes of this week against the four before (shared/rollup/changes.ts), largest first. */
export interface ChangesDoc {
  /** The 35 whole days: the four weeks before from `from`, this week from `split`, up to `to` (today's start). */
  window: { from: string; split: string; to: string };
  margin_pct: number;
  method: string;
  changes: ChangeFlag[];
}

/** A vendor's incident from its Statuspage (GET /api/v1/vendor-incidents; shared/status/statuspage.ts), times as ISO. */
export type VendorIncidentDoc = z.infer<typeof S.VendorIncidentSchema>;

/** A watched status page and its poll's state. */
export type VendorPageDoc = z.infer<typeof S.VendorPageSchema>;

/** A probe incident as the comparison shows it (its whole timeline: GET /api/v1/incidents). */
export type VendorProbeIncidentDoc = VendorIncidentsDoc['probe_incidents'][number];

/** One overlap of a vendor incident and a probe incident of a target naming the page. */
export type VendorMatchDoc = VendorIncidentsDoc['matches'][number];

/** GET /api/v1/vendor-incidents. */
export type VendorIncidentsDoc = z.infer<typeof S.VendorIncidentsDocSchema>;

/** A maintenance window as GET /api/v1/maintenance lists it (shared/status/maintenance.ts); `*` for every target or region. */
export type MaintenanceDoc = z.infer<typeof S.MaintenanceSchema>;

/** One row of GET /api/v1/status-history: a period (its ISO start under `hour` or `day`), its key, the ticks the keeper judged in each state (and how many of them came late), and the worst tick's words. */
export type StatusHistoryRowDoc = z.infer<typeof S.StatusHistoryRowSchema>;

/** GET /api/v1/served-by: each region × target × variant's places of answer over whole hours (shared/rollup/hour-places.ts). */
export interface ServedByDoc {
  window: ApiWindow;
  source: 'rollups';
  rows: Array<{ region: string; target: string; prompt_variant: string; places: ServedPlaceRow[] }>;
}

/** GET /api/v1/fidelity: how far each region × target × variant's timing claims held over whole hours. */
export interface FidelityDoc {
  window: ApiWindow;
  source: 'rollups';
  rows: Array<{ region: string; target: string; prompt_variant: string } & FidelityRow>;
}

/** GET /api/v1/time-profiles: each region × target × variant's 7 × 24 cells, `[days, probes, ttft_p50]`, Monday 0 h first. */
export interface TimeProfilesDoc {
  window: ApiWindow;
  cells: string;
  rows: Array<{ region: string; target: string; prompt_variant: string; cells: Array<[number, number, number | null]> }>;
}
