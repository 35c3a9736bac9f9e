import type { StoredRow } from '../../../shared/sample-fields.ts';
/** What the site is built from: everything fetched from the read API (or a JSON export) at build time. */
export interface Window {
  from: string;
  to: string;
}

export interface Region {
  code: string;
  label: string;
  location_hint: string;
  samples: number;
  last_sample_at: string | null;
  colos: Array<{ colo: string | null; samples: number; outside_region: number }>;
}

export interface Target {
  id: string;
  label: string;
  provider: string;
  api: string;
  model: string;
  endpoint_host: string;
  reference: boolean;
  regions: string[];
  samples: number;
  last_sample_at: string | null;
}

/** One row of /api/v1/percentiles. */
export interface PercentileGroup {
  region?: string;
  target?: string;
  prompt_variant?: string;
  /** Present for the split's parts, which the API never pools across sources. */
  split_source?: string | null;
  n: number;
  samples: number;
  errors: number;
  error_rate: number | null;
  p50: number | null;
  p50_ci_low: number | null;
  p50_ci_high: number | null;
  p90: number | null;
  p90_ci_low: number | null;
  p90_ci_high: number | null;
  p95: number | null;
  p95_ci_low: number | null;
  p95_ci_high: number | null;
  p99: number | null;
  p99_ci_low: number | null;
  p99_ci_high: number | null;
}

/** The columns of a stored sample the site uses (the API's sample, trimmed): names checked against the one schema. */
export const SITE_SAMPLE_FIELDS = [
  'id', 'tick_id', 'started_at', 'region', 'target', 'prompt_variant', 'prompt_tokens', 'colo', 'simulated', 'backfill', 'error', 'status',
  'ttft_ms', 'ttfa_ms', 'network_ms', 'server_ms', 'residual_ms', 'split_source', 'split_note', 'tpot_ms', 'decode_tps', 'total_ms',
  'output_tokens', 'reasoning_tokens', 'reasoning_streamed', 'answer_tokens', 'chunks', 'timeline',
] as const satisfies ReadonlyArray<keyof StoredRow | 'id'>;

export type SiteSample = Pick<StoredRow, Exclude<(typeof SITE_SAMPLE_FIELDS)[number], 'id'>> & { id: number };

export const SITE_METRICS = ['ttft_ms', 'ttfa_ms', 'tpot_ms', 'decode_tps', 'network_ms', 'server_ms', 'total_ms'] as const;
export type SiteMetric = (typeof SITE_METRICS)[number];

export interface PromptVariant {
  id: string;
  label: string;
  prompt_tokens: number;
  max_tokens: number;
}

export interface SiteData {
  generated_at: string;
  /** Where the data came from: the API's base URL, or the export file it was read from. */
  source: string;
  window: Window;
  simulated: boolean;
  schedule: string;
  /** The prompt variant every table and chart is about (the configuration's first), so variants never mix. */
  variant: PromptVariant;
  variants: PromptVariant[];
  regions: Region[];
  targets: Target[];
  /** Percentiles by region and target over the window, per metric, exactly as the API returned them. */
  percentiles: Record<SiteMetric, PercentileGroup[]>;
  samples: SiteSample[];
  /** The API requests behind each part, so a reader (or a test) can check the numbers. */
  api_requests: Record<string, string>;
}
