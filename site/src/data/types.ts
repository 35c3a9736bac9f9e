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

/** The columns of a stored sample the site uses (the API's sample, trimmed). */
export interface SiteSample {
  id: number;
  tick_id: number;
  started_at: number;
  region: string;
  target: string;
  prompt_variant: string;
  prompt_tokens: number;
  colo: string | null;
  simulated: boolean;
  backfill: boolean;
  error: string | null;
  status: number | null;
  ttft_ms: number | null;
  network_ms: number | null;
  server_ms: number | null;
  split_source: string | null;
  tpot_ms: number | null;
  decode_tps: number | null;
  total_ms: number | null;
  output_tokens: number | null;
  chunks: number;
  timeline: number[];
}

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
