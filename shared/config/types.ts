/** The observatory's configuration: what a user edits in observatory.config.ts. */
import type { OtlpConfig } from '../rollup/otlp.ts';
import type { StatusRulesConfig } from '../status/rules.ts';
import type { NotificationsConfig } from '../status/channels.ts';
import type { MaintenanceConfig } from '../status/maintenance.ts';
import type { ApiId, MaxTokensParam, PromptVariant, Timeouts } from '../types.ts';

/** Cloudflare Durable Object location hints. */
export const LOCATION_HINTS = ['wnam', 'enam', 'sam', 'weur', 'eeur', 'apac', 'oc', 'afr', 'me'] as const;
export type LocationHint = (typeof LOCATION_HINTS)[number];

export interface RegionConfig {
  /** Short code used in the data (`weur`); one regional Durable Object per code. */
  code: string;
  label: string;
  /** Where Cloudflare should create the region's object (honoured only when it is first created). */
  locationHint: LocationHint;
  /**
   * Local demo only (`npm start`): the round trip (ms) a delay proxy adds between this region's object
   * and the reference endpoint, standing in for distance. Ignored when deployed.
   */
  simulatedRttMs?: number;
}

/**
 * How a target is authorised when a bearer token (or the protocol's key header) from `apiKeySecret` is
 * not it. Every value named `…Secret` is a Worker secret's NAME, never the secret.
 * - `header`: the key in a header of its own (Azure OpenAI: `{ type: 'header', name: 'api-key', secret: 'AZURE_OPENAI_KEY' }`);
 * - `aws-sigv4`: AWS SigV4 for Bedrock with IAM credentials (region: the endpoint's, unless given);
 * - `google-service-account`: a service-account key file (the whole JSON in one secret), its JWT exchanged
 *   for an access token (`token-exchange`, the default) or sent as a self-signed token (`self-signed`).
 */
export type AuthConfig =
  | { type: 'header'; name: string; secret: string }
  | { type: 'aws-sigv4'; region?: string; accessKeyIdSecret: string; secretAccessKeySecret: string; sessionTokenSecret?: string }
  | { type: 'google-service-account'; secret: string; mode?: 'token-exchange' | 'self-signed' };

export interface TargetConfig {
  /** Stable id used in the data: change it and the history starts anew. */
  id: string;
  label: string;
  provider: string;
  api: ApiId;
  /** Endpoint URL; `{REFERENCE_URL}` is replaced by the REFERENCE_URL variable of the Worker. */
  url: string;
  model: string;
  /** Name of the Worker secret holding the API key (`wrangler secret put NAME`); never the key itself. */
  apiKeySecret?: string;
  /** Authorisation other than the protocol's own key header: SigV4 (Bedrock), a service account (Vertex AI), a named header (Azure). */
  auth?: AuthConfig;
  headers?: Record<string, string>;
  /** JSON merged into the request body, object by object (a reasoning effort, a thinking budget …). */
  extraBody?: Record<string, unknown>;
  /** openai-chat only: `max_completion_tokens` for OpenAI's reasoning models, which refuse `max_tokens` (default). */
  maxTokensParam?: MaxTokensParam;
  /** Server-Timing metric names that count as server time before headers (default: all). */
  serverTimingMetrics?: string[];
  /** Only these regions probe it (default: all). */
  regions?: string[];
  /** Only these prompt variants (default: all). */
  promptVariants?: string[];
  /** The bundled reference endpoint: a control row, labelled as such. */
  reference?: boolean;
  /**
   * The vendor's list price per million tokens: `npm run capacity`'s cost of probing, and the compare page's
   * latency against price (docs/MEASUREMENT.md, "Latency against price"). Without one, a target is left out of both.
   */
  price?: PriceConfig;
  /** Opt in to the scheduled concurrency probes (`bursts`): several simultaneous streams, level by level. */
  bursts?: boolean;
  /** Opt in to the prompt-cache variants (`promptCache: true` on a variant): each probe is two requests with a long shared prefix. */
  promptCache?: boolean;
  /**
   * The model reasons before it answers (streamed or hidden). Default: guessed from the model name.
   * `npm run capacity` warns when such a target's budget makes `no_answer` likely.
   */
  reasoning?: boolean;
  /**
   * The vendor's Atlassian Statuspage: its address (`https://status.example.com`) or `{VAR}`. Its incidents are
   * polled and set beside the probes' own (docs/STATUS.md, "Vendor status pages"); targets may share one.
   */
  statusPage?: string;
}

/** A list price, dated and sourced: prices change, and a reader must be able to check the one used. */
export interface PriceConfig {
  /** Per million input (prompt) tokens, at most 10,000. */
  inputPerMTokens: number;
  /** Per million output tokens (reasoning tokens are billed as output), at most 10,000. */
  outputPerMTokens: number;
  /** Only US dollars: the costs of different targets are compared with each other. */
  currency: 'USD';
  /** The day the price was read, `YYYY-MM-DD`. */
  asOf: string;
  /** Where it was read: the vendor's pricing page, or a few words (a demo price says it is illustrative). */
  source: string;
}

export interface PromptVariantConfig extends PromptVariant {
  label: string;
  /**
   * A prompt-cache probe (MEASUREMENT.md, "Prompt cache"): each probe sends this prompt twice in one tick,
   * the first with a fresh nonce, the second seconds later reusing its exact prefix. Run only by targets
   * with `promptCache: true` (it costs tokens). Its second passes are stored as the variant `<id>-warm`.
   */
  promptCache?: boolean;
  /** Set by the configuration check, never by hand: this variant is the second pass of the prompt-cache variant named. */
  warmPassOf?: string;
}

export interface ObservatoryConfig {
  /** Cron schedule, `*\/N * * * *`; must equal the crons in wrangler.toml. */
  schedule: string;
  /** Which plan's limits the scheduler stays within. */
  plan: 'free' | 'paid';
  regions: RegionConfig[];
  targets: TargetConfig[];
  promptVariants: PromptVariantConfig[];
  timeouts: Timeouts;
  /** Probes at once in one region (1 keeps them from distorting each other; at most 3). */
  concurrency: number;
  /** Round-trip GETs before each probe (0 to skip; they also warm the connection). */
  rttProbes: number;
  /** Raw samples older than this are deleted (exact percentiles and timelines need them). */
  retentionDays: number;
  /** Hourly rollups older than this are deleted (long windows are answered from them). */
  rollupRetentionDays: number;
  /** Expected wall time of one probe, for budgeting Durable Object duration and tick length. */
  probeSecondsEstimate: number;
  /** Who reads the data, for the capacity model's D1 reads (defaults: hourly site builds, a Prometheus scrape a minute, 1,000 API requests a day). */
  readers?: ReadersConfig;
  /** Optional: push each hour's rollups, once written, as OTLP/HTTP JSON (ExponentialHistogram points) to this collector. */
  otlp?: OtlpConfig;
  /** Status rules (docs/STATUS.md); every field defaults to shared/status/rules.ts. */
  status?: StatusRulesConfig;
  /** Where incident messages go: channels by name, secrets as Worker secrets. */
  notifications?: NotificationsConfig;
  /**
   * Planned maintenance (a vendor's announced window, a key rotation): a target or all, a region or all, a start,
   * an end and a note. Evaluations go on and count as maintenance; nobody is paged. More through the admin API.
   */
  maintenance?: MaintenanceConfig[];
  /** Scheduled concurrency probes of the targets that opt in (`bursts: true`). */
  bursts?: BurstConfig;
}

/**
 * Concurrency probes: on their own schedule, each region starts `level` simultaneous streams to each
 * opted-in target, for each level in turn; a rate limit (429) stops the escalation for that run.
 */
export interface BurstConfig {
  /** Cron of the runs, hourly (`M * * * *`) or daily (`M H * * *`); it must be among wrangler.toml's crons too. */
  schedule: string;
  /** Simultaneous streams per level, ascending, from 1 to 32 (default [1, 4, 8, 16]). */
  levels?: number[];
  /** The prompt variant the streams use (default: the configuration's first). */
  variant?: string;
}

export interface ReadersConfig {
  /** Minutes between site builds (the rebuild workflow's schedule); 0 for none. */
  siteRebuildMinutes?: number;
  /** Seconds between scrapes of GET /metrics; 0 for none. */
  metricsScrapeSeconds?: number;
  /** Anonymous read-API requests per day, answered from the public views (no D1 row). */
  apiRequestsPerDay?: number;
  /** Read-API requests per day on the live path (a token holder's, an ad-hoc window), each counted as a 7-day percentile query from rollups. */
  liveApiRequestsPerDay?: number;
  /** D1 rows anonymous API reads may use a day in all; past it they get 429 until 00:00 UTC (default: what the plan's quota leaves the public, capacity.ts). */
  anonymousRowsPerDay?: number;
}
