/**
 * Every field of a sample, defined once (MEASUREMENT.md names them): its type, whether it may be
 * null, and what kind of fact it is. The TypeScript `Sample` type, a new sample's defaults, the D1
 * columns and their row form, the read API's metric list and the site's sample fields are all
 * derived from these lists; a test holds the migrations to them. A new field goes here and into a
 * new numbered migration, nowhere else.
 */
import { API_IDS, ERROR_CLASSES } from './ids.ts';

/** `bool` is stored as INTEGER 0/1; `json` as TEXT; `timeline` as delta-encoded TEXT. */
export type FieldType = 'int' | 'real' | 'text' | 'bool' | 'json' | 'timeline';

/**
 * - context: what was probed, where and when;
 * - figure: a measured figure of MEASUREMENT.md that percentiles can be taken of;
 * - claim: what the server reported about itself (also percentile-able when numeric);
 * - outcome: how the probe ended;
 * - series: per-read detail behind the figures.
 */
export type FieldKind = 'context' | 'figure' | 'claim' | 'outcome' | 'series';

export interface FieldDef {
  readonly name: string;
  readonly type: FieldType;
  readonly nullable: boolean;
  readonly kind: FieldKind;
  /** The value is one of these (a narrower TypeScript type). */
  readonly values?: readonly string[];
  /** Percentiles of this field can be asked of the read API. */
  readonly metric?: boolean;
  /** The stored column is NOT NULL although the probe's sample may leave it null (filled in before storing). */
  readonly storedNotNull?: boolean;
}

/** The fields of one probe's sample, in the order of MEASUREMENT.md. */
export const SAMPLE_FIELDS = [
  { name: 'method_version', type: 'int', nullable: false, kind: 'context' },
  { name: 'target', type: 'text', nullable: false, kind: 'context' },
  { name: 'api', type: 'text', nullable: false, kind: 'context', values: API_IDS },
  { name: 'model', type: 'text', nullable: false, kind: 'context' },
  { name: 'prompt_variant', type: 'text', nullable: false, kind: 'context' },
  // Wall-clock time of t0, epoch milliseconds (may carry a fraction).
  { name: 'started_at', type: 'real', nullable: false, kind: 'context' },
  { name: 'region', type: 'text', nullable: true, kind: 'context', storedNotNull: true },
  { name: 'colo', type: 'text', nullable: true, kind: 'context' },
  { name: 'upstream_colo', type: 'text', nullable: true, kind: 'context' },
  // Where the vendor answered (a vendor region, PoP or routed provider), and which header, body field or URL part said so.
  { name: 'served_by', type: 'text', nullable: true, kind: 'context' },
  { name: 'served_by_source', type: 'text', nullable: true, kind: 'context' },
  { name: 'colo_outside_region', type: 'bool', nullable: true, kind: 'context' },
  { name: 'warm', type: 'bool', nullable: false, kind: 'context' },
  { name: 'status', type: 'int', nullable: true, kind: 'outcome' },

  { name: 'headers_ms', type: 'real', nullable: true, kind: 'figure', metric: true },
  { name: 'first_byte_ms', type: 'real', nullable: true, kind: 'figure', metric: true },
  { name: 'ttft_ms', type: 'real', nullable: true, kind: 'figure', metric: true },
  { name: 'ttfa_ms', type: 'real', nullable: true, kind: 'figure', metric: true },
  { name: 'total_ms', type: 'real', nullable: true, kind: 'figure', metric: true },
  { name: 'output_tokens', type: 'int', nullable: true, kind: 'figure', metric: true },
  { name: 'tokens_exact', type: 'bool', nullable: false, kind: 'figure' },
  { name: 'reasoning_tokens', type: 'int', nullable: true, kind: 'figure', metric: true },
  // Null only on rows stored before method version 2, which did not record it.
  { name: 'reasoning_streamed', type: 'bool', nullable: true, kind: 'figure' },
  { name: 'answer_tokens', type: 'int', nullable: true, kind: 'figure', metric: true },
  // The variant's fixed input size (tokens, approximate by construction).
  { name: 'prompt_tokens', type: 'int', nullable: false, kind: 'context' },
  // Input tokens the provider reported, when it did.
  { name: 'input_tokens', type: 'int', nullable: true, kind: 'claim', metric: true },
  // Input tokens the provider reported reading from its prompt cache (MEASUREMENT.md, "Prompt cache"), when it did.
  { name: 'cached_tokens', type: 'int', nullable: true, kind: 'claim', metric: true },
  { name: 'max_tokens', type: 'int', nullable: false, kind: 'context' },
  // A prompt-cache probe's pass (MEASUREMENT.md, "Prompt cache"): 1 with a fresh prefix, 2 reusing it; null for any other probe.
  { name: 'cache_pass', type: 'int', nullable: true, kind: 'context' },
  { name: 'tpot_ms', type: 'real', nullable: true, kind: 'figure', metric: true },
  { name: 'decode_tps', type: 'real', nullable: true, kind: 'figure', metric: true },
  { name: 'itl_p50_ms', type: 'real', nullable: true, kind: 'figure', metric: true },
  { name: 'itl_p90_ms', type: 'real', nullable: true, kind: 'figure', metric: true },
  { name: 'itl_p99_ms', type: 'real', nullable: true, kind: 'figure', metric: true },
  { name: 'itl_max_ms', type: 'real', nullable: true, kind: 'figure', metric: true },
  { name: 'chunks', type: 'int', nullable: false, kind: 'figure', metric: true },

  { name: 'server_headers_ms', type: 'real', nullable: true, kind: 'claim', metric: true },
  // Every server timing found in headers (and the body's that are no TTFT), by source name: the raw claims, also those set aside.
  { name: 'server_timings', type: 'json', nullable: false, kind: 'claim' },
  { name: 'server_ttft_ms', type: 'real', nullable: true, kind: 'claim', metric: true },
  { name: 'server_ttft_source', type: 'text', nullable: true, kind: 'claim' },
  { name: 'rtt_ms', type: 'real', nullable: true, kind: 'figure', metric: true },
  { name: 'network_ms', type: 'real', nullable: true, kind: 'figure', metric: true },
  { name: 'server_ms', type: 'real', nullable: true, kind: 'figure', metric: true },
  { name: 'residual_ms', type: 'real', nullable: true, kind: 'figure', metric: true },
  // Where the split came from: a header timing name, a body timing name, or `rtt`.
  { name: 'split_source', type: 'text', nullable: true, kind: 'figure' },
  // Which server claim was set aside for the split, and why (MEASUREMENT.md, Plausibility).
  { name: 'split_note', type: 'text', nullable: true, kind: 'figure' },

  { name: 'finish_reason', type: 'text', nullable: true, kind: 'outcome' },
  { name: 'error', type: 'text', nullable: true, kind: 'outcome', values: ERROR_CLASSES },
  { name: 'error_detail', type: 'text', nullable: true, kind: 'outcome' },
  // Offsets from t0 (ms) of every token-bearing read: the chunk timeline behind ITL.
  { name: 'timeline', type: 'timeline', nullable: false, kind: 'series' },
] as const satisfies readonly FieldDef[];

/** What a stored row adds to the probe's sample: its tick, and how it was taken. */
export const STORED_ONLY_FIELDS = [
  { name: 'tick_id', type: 'int', nullable: false, kind: 'context' },
  { name: 'simulated', type: 'bool', nullable: false, kind: 'context' },
  { name: 'backfill', type: 'bool', nullable: false, kind: 'context' },
  // Run by its region because the scheduler's tick never came (a cron that did not fire, a dispatcher that died).
  { name: 'late', type: 'bool', nullable: false, kind: 'context' },
  // Its place (0-based) in the region's shuffled order of the tick; null on rows from before the shuffle, and on bursts.
  { name: 'tick_position', type: 'int', nullable: true, kind: 'context' },
] as const satisfies readonly FieldDef[];

/** Every stored column but the row id: the tick first (its key and time), then the sample, then how it was taken. */
export const STORED_FIELDS: readonly FieldDef[] = [STORED_ONLY_FIELDS[0], ...SAMPLE_FIELDS, ...STORED_ONLY_FIELDS.slice(1)];

type ValueOf<F extends FieldDef> = F extends { values: readonly (infer V)[] }
  ? V
  : F['type'] extends 'int' | 'real'
    ? number
    : F['type'] extends 'text'
      ? string
      : F['type'] extends 'bool'
        ? boolean
        : F['type'] extends 'json'
          ? Record<string, number>
          : F['type'] extends 'timeline'
            ? number[]
            : never;

type RowOf<Fs extends readonly FieldDef[]> = {
  [F in Fs[number] as F['name']]: F['nullable'] extends true ? ValueOf<F> | null : ValueOf<F>;
};

/** One probe's result. Every probe produces exactly one sample, also when it fails. */
export type Sample = RowOf<typeof SAMPLE_FIELDS>;
export type SampleField = keyof Sample;
export type StoredOnly = RowOf<typeof STORED_ONLY_FIELDS>;
/** A stored row: the sample, its tick and how it was taken; every stored sample has its region. */
export type StoredRow = Omit<Sample, 'region'> & StoredOnly & { region: string };

/** Units by name: the definitions name every duration `_ms`, every count `_tokens` (MEASUREMENT.md); the rest by name. */
const NAMED_UNITS: Record<string, string> = {
  tick_id: 'epoch ms',
  started_at: 'epoch ms',
  decode_tps: 'tokens/s',
  timeline: '0.1 ms deltas',
  server_timings: 'ms',
};

/** A field's unit (the archive's column metadata, OTLP's and /metrics' scales), or null when it has none. */
export function unitOf(name: string): string | null {
  if (name in NAMED_UNITS) return NAMED_UNITS[name];
  if (name.endsWith('_ms')) return 'ms';
  if (name.endsWith('_tokens')) return 'tokens';
  return null;
}

/** What each rolled-up figure is, in words: /metrics' HELP and OTLP's description say the same. */
export const FIGURE_DESCRIPTIONS = {
  ttft_ms: 'Time to first token (any output, reasoning included), successful probes.',
  ttfa_ms: 'Time to the first answer token (after streamed reasoning), successful probes.',
  tpot_ms: 'Time per output token of the answer, per probe.',
  itl_p99_ms: 'Per-probe p99 of the gaps between token-bearing chunks.',
  total_ms: 'End-to-end latency of a streamed completion.',
  decode_tps: 'Decode speed after the first answer token (1000 / TPOT).',
  network_ms: 'Network part of TTFT, per split source.',
  server_ms: 'Server part of TTFT, per split source.',
} as const satisfies Partial<Record<SampleField, string>>;

/** Fields the read API can take percentiles of (also its SQL column allow-list). */
export const METRIC_FIELDS = SAMPLE_FIELDS.filter((f) => 'metric' in f && f.metric).map((f) => f.name) as Array<
  Extract<(typeof SAMPLE_FIELDS)[number], { metric: true }>['name']
>;
export type MetricField = (typeof METRIC_FIELDS)[number];

export const SQL_TYPES: Record<FieldType, 'INTEGER' | 'REAL' | 'TEXT'> = {
  int: 'INTEGER',
  real: 'REAL',
  text: 'TEXT',
  bool: 'INTEGER',
  json: 'TEXT',
  timeline: 'TEXT',
};

/** The value a field has before the probe learns anything. */
function emptyValue(f: FieldDef): unknown {
  if (f.nullable) return null;
  switch (f.type) {
    case 'bool':
      return false;
    case 'json':
      return {};
    case 'timeline':
      return [];
    case 'text':
      return '';
    default:
      return 0;
  }
}

/** A sample with every field at its empty value; the probe fills in what it measures. */
export function emptySample(): Sample {
  const s: Record<string, unknown> = {};
  for (const f of SAMPLE_FIELDS) s[f.name] = emptyValue(f);
  return s as Sample;
}
