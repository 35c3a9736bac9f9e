/** Every duration and limit of the measurement core, named once. */
import { HOUR_MS } from './time.ts';

/** Bumped whenever a definition in MEASUREMENT.md changes, so old and new figures never mix silently. */
export const METHOD_VERSION = 2;

/**
 * How far a server's timing claim may exceed what the client observed before it is set aside as
 * impossible: a deployed Worker's clock has 1 ms resolution, and vendors report whole milliseconds.
 */
export const CLOCK_RESOLUTION_MS = 1;

/** Default probe timeouts (milliseconds). A target's config may override each. */
export const DEFAULT_TIMEOUTS = {
  /** fetch() must resolve (status line and headers in) within this time of t0. */
  headersMs: 30_000,
  /** The first token must arrive within this time of t0. */
  firstTokenMs: 60_000,
  /** After the first token, no gap between tokens may exceed this. */
  idleMs: 20_000,
  /** Hard bound on the whole probe. */
  totalMs: 120_000,
} as const;

/** Default prompt variant: input and output sizes in tokens. */
export const DEFAULT_PROMPT_TOKENS = 64;
export const DEFAULT_MAX_TOKENS = 128;

/** How many tiny requests the round-trip probe makes; the minimum is kept. */
export const RTT_PROBE_COUNT = 3;

/** Bytes of an error body read to build error_detail. */
export const ERROR_BODY_LIMIT_BYTES = 4_096;
/** Longest error_detail stored. */
export const ERROR_DETAIL_MAX_CHARS = 200;

/** The nonce line placed before each prompt so no cache can answer it. */
export const NONCE_HEX_CHARS = 16;

/**
 * A prompt-cache variant's shortest promptTokens: its prefix (all but the last ~45 tokens) must pass the
 * providers' smallest cacheable prefix (OpenAI's and Anthropic's 1,024 tokens) with room to spare.
 */
export const MIN_CACHED_PROMPT_TOKENS = 1_200;

/** A line, or one event's data, longer than this (UTF-16 units: at least 1 MiB of bytes) is a `protocol` error. */
export const MAX_EVENT_CHARS = 1024 * 1024;

/** A stream larger than this is cut off as a `protocol` error (a runaway or hostile server). */
export const MAX_STREAM_BYTES = 16 * 1024 * 1024;

/** Header values this long are treated as possible credentials and redacted from error details. */
export const MIN_SECRET_LENGTH = 8;

/** Bounds a CLI run accepts: probes per run, and any timeout (setTimeout overflows past 2^31 ms). */
export const MAX_PROBES_PER_RUN = 100_000;
export const MAX_TIMEOUT_MS = HOUR_MS;

/** Response headers of the read API: the D1 rows the request read and wrote (what D1 bills). */
export const ROWS_READ_HEADER = 'x-d1-rows-read';
export const ROWS_WRITTEN_HEADER = 'x-d1-rows-written';
/** Durable Object requests a response of the read API caused (workers/observatory/do-meter.ts). */
export const DO_REQUESTS_HEADER = 'x-do-requests';
