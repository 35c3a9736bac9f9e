/**
 * The read API's answers, as types: the routes in workers/observatory/api/ build them (checked with
 * `satisfies`), and the report site reads them. Each shape is derived from the definitions it reports
 * (the percentile list, the status rules, findings and incidents), so a change there changes both sides.
 */
import type { LevelReport } from './bursts/level-report.ts';
import type { ErrorClass } from './ids.ts';
import type { PairedFigure } from './rollup/paired-hours.ts';
import type { CacheDiscount } from './rollup/cache-hours.ts';
import type { ChangeFlag } from './rollup/changes.ts';
import type { PairedResult } from './stats/paired.ts';
import type { PERCENTILE_NAMES } from './stats/percentile.ts';
import type { Finding } from './status/evaluate.ts';
import type { Incident, IncidentEvent, IncidentRegion } from './status/incidents.ts';
import type { PairStatus } from './status/pair-state.ts';
import type { StateColumn } from './status/levels.ts';
import type { FidelityRow, ServedPlaceRow } from './rollup/hour-places.ts';
import type { StatusRules } from './status/rules.ts';

export interface ApiWindow {
  from: string;
  to: string;
}

/** GET /api/v1/regions: one configured region, and what it has sampled in the window. */
export interface RegionInfo {
  code: string;
  label: string;
  location_hint: string;
  samples: number;
  last_sample_at: string | null;
  colos: Array<{ colo: string | null; samples: number; outside_region: number }>;
}

/** GET /api/v1/targets: one configured target, and what it has sampled in the window. */
export interface TargetInfo {
  id: string;
  label: string;
  provider: string;
  api: string;
  model: string;
  endpoint_host: string;
  reference: boolean;
  /** It runs the prompt-cache variants (GET /api/v1/prompt-cache). */
  prompt_cache: boolean;
  regions: string[];
  samples: number;
  last_sample_at: string | null;
  /** Its list price as configured (observatory.config.ts), null without one; the reference targets' are the demo's, illustrative. */
  price: TargetPrice | null;
}

/** A list price per million tokens, dated and sourced (docs/MEASUREMENT.md, "Latency against price"). */
export interface TargetPrice {
  input_per_mtokens: number;
  output_per_mtokens: number;
  currency: 'USD';
  /** The day it was read, YYYY-MM-DD. */
  as_of: string;
  /** Where it was read: a pricing page's URL, or words. */
  source: string;
}

/** A prompt variant as GET /api/v1/health lists it. */
export interface PromptVariantInfo {
  id: string;
  label: string;
  prompt_tokens: number;
  max_tokens: number;
  /** A prompt-cache variant (its probes send the prompt twice), and, on its second pass's entry, which one it is the second pass of. */
  prompt_cache?: true;
  warm_pass_of?: string;
}

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

/** GET /api/v1/changes: the TTFA changes of this week against the four before (shared/rollup/changes.ts), largest first. */
export interface ChangesDoc {
  /** The 35 whole days: the four weeks before from `from`, this week from `split`, up to `to` (today's start). */
  window: { from: string; split: string; to: string };
  margin_pct: number;
  method: string;
  changes: ChangeFlag[];
}

/** A vendor's incident from its Statuspage (GET /api/v1/vendor-incidents; shared/status/statuspage.ts), times as ISO. */
export interface VendorIncidentDoc {
  /** The page's configured address (the targets' `statusPage`). */
  page: string;
  id: string;
  name: string;
  impact: string;
  status: string;
  components: string[];
  /** When the vendor posted it. */
  created_at: string;
  /** When the vendor says it began. */
  started_at: string | null;
  resolved_at: string | null;
  updated_at: string;
  /** Oldest first. */
  updates: Array<{ status: string; at: string }>;
  shortlink: string | null;
  /** The targets naming its page. */
  targets: string[];
}

/** A watched status page and its poll's state. */
export interface VendorPageDoc {
  page: string;
  /** The address polled ({VAR} resolved), null before its first poll. */
  url: string | null;
  targets: string[];
  /** Its first successful poll: vendor and probe incidents are compared from then on. */
  watched_since: string | null;
  /** The last poll that brought a change. */
  changed_at: string | null;
  /** The failure holding now (timeout, unreachable, http, too_large, malformed), or null. */
  error: { kind: string; message: string; since: string } | null;
}

/** A probe incident as the comparison shows it (its whole timeline: GET /api/v1/incidents). */
export interface VendorProbeIncidentDoc {
  id: string;
  target: string;
  target_label: string;
  prompt_variant: string;
  status: 'open' | 'resolved';
  severity: string;
  scope: string;
  regions: string[];
  opened_at: string;
  resolved_at: string | null;
}

/** One overlap of a vendor incident and a probe incident of a target naming the page. */
export interface VendorMatchDoc {
  page: string;
  vendor_incident: string;
  incident: string;
  target: string;
  prompt_variant: string;
  /** The vendor's created_at minus the probe incident's opened_at (its tick): positive when the probes saw it first. */
  lead_ms: number;
  lead_minutes: number;
  /** "14 min before the vendor posted it". */
  words: string;
}

/** GET /api/v1/vendor-incidents. */
export interface VendorIncidentsDoc {
  window: ApiWindow;
  /** How far apart two incidents may lie and still be one event. */
  slack_minutes: number;
  method: string;
  pages: VendorPageDoc[];
  /** Posted in the window (or unresolved), newest first. */
  vendor_incidents: VendorIncidentDoc[];
  /** The probe incidents compared: of targets naming a page, opened in the window widened by the slack (or open). */
  probe_incidents: VendorProbeIncidentDoc[];
  matches: VendorMatchDoc[];
  /** Vendor incidents no probe incident overlapped (since their page was watched). */
  unseen_by_probes: Array<{ page: string; id: string }>;
  /** Probe incidents (ids) no vendor incident overlapped (since their target's page was watched). */
  unposted_by_vendor: string[];
}

/** A maintenance window as GET /api/v1/maintenance lists it (shared/status/maintenance.ts); `*` for every target or region. */
export interface MaintenanceDoc {
  id: string;
  target: string;
  region: string;
  start: string;
  end: string;
  note: string;
  source: 'config' | 'api';
}

/** One row of GET /api/v1/status-history: a period (its ISO start under `hour` or `day`), its key, the ticks the keeper judged in each state (and how many of them came late), and the worst tick's words. */
export type StatusHistoryRowDoc = {
  hour?: string;
  day?: string;
  target: string;
  prompt_variant: string;
  region: string;
} & Record<StateColumn, number> & {
    /** Of those ticks, the ones whose report reached the keeper after it had judged the tick without it (docs/STATUS.md). */
    late: number;
    note: string | null;
  };

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
