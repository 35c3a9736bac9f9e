/** What the site is built from: everything fetched from the read API (or a JSON export) at build time. */
import type { StoredRow, MetricField } from '../../../shared/sample-fields.ts';
import type {
  ApiWindow,
  BurstsDoc,
  FidelityDoc,
  ServedByDoc,
  IncidentDoc,
  PercentileGroup,
  MaintenanceDoc,
  PromptCacheDoc,
  PromptVariantInfo,
  RegionInfo,
  StatusDoc,
  StatusHistoryRowDoc,
  TargetInfo,
} from '../../../shared/api-types.ts';
import type { LevelReport } from '../../../shared/bursts/level-report.ts';
import type { UptimeMonth } from '../../../shared/status/uptime.ts';
import type { PairedView } from './paired.ts';
import type { ChangeFlag } from './changes.ts';
import type { SiteProfiles } from './profiles.ts';
import type { ViewWindowId as WindowId } from '../../../shared/views/windows.ts';

export type { PairStatusName, PercentileGroup, RegionStatus, StatusDoc } from '../../../shared/api-types.ts';
export type Window = ApiWindow;
export type Region = RegionInfo;
export type Target = TargetInfo;
export type PromptVariant = PromptVariantInfo;
/** An incident as the site shows it: with its points (the site asks for them). */
export type SiteIncident = IncidentDoc & { points: NonNullable<IncidentDoc['points']> };
/** One level of a region × target's concurrency probes (GET /api/v1/bursts, shared/bursts/level-report.ts). */
export type BurstLevel = LevelReport;
export type SiteBursts = Omit<BurstsDoc, 'method'>;

/** The columns of a stored sample the site uses (the API's sample, trimmed): names checked against the one schema. */
export const SITE_SAMPLE_FIELDS = [
  'id',
  'tick_id',
  'started_at',
  'region',
  'target',
  'prompt_variant',
  'prompt_tokens',
  'input_tokens',
  'colo',
  'served_by',
  'served_by_source',
  'colo_outside_region',
  'simulated',
  'backfill',
  'error',
  'status',
  'ttft_ms',
  'ttfa_ms',
  'network_ms',
  'server_ms',
  'residual_ms',
  'split_source',
  'split_note',
  'rtt_ms',
  'tick_position',
  'tpot_ms',
  'decode_tps',
  'total_ms',
  'output_tokens',
  'reasoning_tokens',
  'reasoning_streamed',
  'answer_tokens',
  'chunks',
  'timeline',
] as const satisfies ReadonlyArray<keyof StoredRow | 'id'>;

export type SiteSample = Pick<StoredRow, Exclude<(typeof SITE_SAMPLE_FIELDS)[number], 'id'>> & { id: number };

export const SITE_METRICS = [
  'ttft_ms',
  'ttfa_ms',
  'tpot_ms',
  'decode_tps',
  'network_ms',
  'server_ms',
  'total_ms',
] as const satisfies readonly MetricField[];
export type SiteMetric = (typeof SITE_METRICS)[number];

/** The windows the site offers: the public views' (shared/views/windows.ts), each answered from rollups. */
export {
  DEFAULT_VIEW_WINDOW as DEFAULT_WINDOW,
  VIEW_WINDOWS as WINDOWS,
  type ViewWindowId as WindowId,
} from '../../../shared/views/windows.ts';

/** One period of a window's history (an hour of the 24 h view, a day of the others) for one region × target. */
export interface HistoryPoint {
  start: string;
  region: string;
  target: string;
  probes: number;
  failures: number;
  /** Failures per error class. */
  errors: Partial<Record<string, number>>;
  ttft_p50: number | null;
  ttft_p95: number | null;
}

export interface WindowView {
  id: WindowId;
  label: string;
  window: Window;
  /** The history's period. */
  resolution: 'hour' | 'day';
  /** Percentiles by region and target over the window, per metric (the site's prompt variant), with 95 % intervals. */
  percentiles: Record<SiteMetric, PercentileGroup[]>;
  /** TTFT percentiles per target, its regions pooled (the status baseline). */
  ttft_by_target: PercentileGroup[];
  /** Per region × target and period. */
  history: HistoryPoint[];
  /** Per target and period, its regions merged (region '*'). */
  target_history: HistoryPoint[];
}

/** A part of the local demo (npm start) still being measured when the site was built: shown instead of an empty chart. */
export interface PendingPart {
  id: 'backfill' | 'incident' | 'concurrency';
  /** What it fills, e.g. "the long-window history (30 d and 90 d views)". */
  label: string;
  /** When it should land, estimated from the demo's measured rate. */
  ready_at: string;
}

/** A published week's report and its versions, oldest first (parts/reports.ts; docs/REPORTS.md). */
export interface SiteReportWeek {
  week: string;
  window: { from: string; to: string };
  versions: Array<
    import('../../../shared/reports/report.ts').ReportVersionEntry & {
      url: string;
      report: import('../../../shared/reports/report.ts').WeeklyReport;
    }
  >;
}

export interface SiteData {
  generated_at: string;
  /** The weekly comparison reports, newest week first: the newest SITE_REPORT_WEEKS weeks' versions in full. */
  reports: SiteReportWeek[];
  /** Parts still being measured (the local demo's first builds); absent or empty once everything has landed. */
  pending?: PendingPart[];
  /** Where the data came from: the API's base URL, or the export file it was read from. */
  source: string;
  /** The default view's window (the figures in `percentiles`). */
  window: Window;
  simulated: boolean;
  schedule: string;
  /**
   * The prompt variant the figures below are about (the configuration's first; `scopedTo` in
   * variants.ts gives any other's), so variants never mix.
   */
  variant: PromptVariant;
  variants: PromptVariant[];
  /** Every variant's window views (the default variant's are also `windows`). */
  variant_windows: Record<string, WindowView[]>;
  regions: Region[];
  targets: Target[];
  /** Percentiles by region and target over the default window (`windows` holds every view). */
  percentiles: Record<SiteMetric, PercentileGroup[]>;
  windows: WindowView[];
  /** The largest relative error of a percentile read from the rollups' histograms. */
  relative_error: number;
  /** What the site reads of the health answer beside the catalog: the schedule's spread, how many vendor status pages. */
  health?: { spread: number; vendor_pages: number };
  /** Where each region × target × variant was answered, and how far its timing claims held (the last 24 whole hours). */
  served: ServedByDoc | null;
  fidelity: FidelityDoc | null;
  /** The bounded slice of raw samples (the newest, every variant) behind timelines, ITL and the split's residual. */
  recent: Window;
  samples: SiteSample[];
  /** Status now, per region × target (null when the API had none to give). */
  status: StatusDoc | null;
  /** Incidents opened in the longest view's window (or still open), newest first. */
  incidents: SiteIncident[];
  /** The vendors' status pages beside the incidents (GET /api/v1/vendor-incidents); absent without a page, or from an older export. */
  vendor_incidents?: import('../../../shared/api-types.ts').VendorIncidentsDoc;
  /** The concurrency probes' newest runs (null when the API had none to give). */
  bursts: SiteBursts | null;
  /** Paired verdicts per prompt variant over the default window (GET /api/v1/compare's views, paired.ts); empty before any hour is rolled up. */
  paired: Record<string, PairedView>;
  /** TTFA changes, this week against the four before (GET /api/v1/changes's view), every variant; largest first. */
  changes: ChangeFlag[];
  /** Time profiles (profiles.ts): per variant, per "region|target", 7 × 24 cells of median TTFT over four weeks. */
  profiles: SiteProfiles;
  /** Each opted-in target's prompt cache per region (GET /api/v1/prompt-cache's view of the default window). */
  prompt_caches: PromptCacheDoc[];
  /** The status keeper's counted judgements (GET /api/v1/status-history): hours of the last day, days of the last 90. */
  status_history: { hours: StatusHistoryRowDoc[]; days: StatusHistoryRowDoc[] };
  /** The uptime report of each month the status history reaches into (shared/status/uptime.ts). */
  uptime: UptimeMonth[];
  /** Maintenance windows that ended in the last 90 days or are still to come (GET /api/v1/maintenance). */
  maintenance: MaintenanceDoc[];
  /** The Parquet archive's manifest, summed up (archive.ts); null when it could not be read, absent from an older export. */
  archive?: import('./archive.ts').ArchiveSummary | null;
  /** The API requests behind each part, so a reader (or a test) can check the numbers. */
  api_requests: Record<string, string>;
  /** D1 rows each request read (the API's x-d1-rows-read header), and their sum: what one build costs. */
  d1_rows_read: Record<string, number>;
  d1_rows_read_total: number;
}
