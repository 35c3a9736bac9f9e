import { DEFAULT_TIMEOUTS, MAX_STREAM_BYTES, METHOD_VERSION, MIN_SECRET_LENGTH } from '../constants.ts';
import { fillFigures } from './figures.ts';
import { readHeaderTimings, upstreamColo, type HeaderTimings } from './header-timings.ts';
import { httpErrorDetail, readErrorBody, safeDetail } from './error-detail.ts';
import { buildCachePrompt, buildPrompt, randomNonce } from './prompt.ts';
import { protocolFor } from './protocols/index.ts';
import { servedBy } from './served-by.ts';
import { AccessTokenCache, authorize, authSecrets, AuthError, tokenTimeoutMs, type AuthContext } from './auth.ts';
import type { BuiltRequest } from './protocols/protocol.ts';
import { StreamMeter } from './stream-meter.ts';
import { emptySample } from '../sample-fields.ts';
import { warmUp } from './warm-up.ts';
import { boundedSplitSource, MemorySplitSourceBook, type SplitSourceBook } from './split-sources.ts';
import { Watchdog, type Expiry } from './watchdog.ts';
import type { Clock, ErrorClass, FetchLike, ProbeTarget, PromptVariant, Sample, Timeouts } from '../types.ts';

export interface ProbeOptions {
  target: ProbeTarget;
  prompt: PromptVariant;
  timeouts?: Partial<Timeouts>;
  fetch?: FetchLike;
  /** Monotonic clock in ms (performance.now). */
  now?: Clock;
  /** Wall clock in epoch ms, read once just before t0. */
  wallClock?: Clock;
  /**
   * Epoch ms of a monotonic reading, where the two clocks share an origin (in Node, performance.timeOrigin
   * + t): started_at is then t0 itself, not a second reading a preempted process may take late.
   */
  epochOf?: (t: number) => number;
  /** A warm-up request to the same origin preceded this probe in the same invocation. */
  warm?: boolean;
  /** Round trip measured beforehand (measureRtt), used when the server reports no timing. */
  rttMs?: number | null;
  /** Why the round trip set any of its own server claims aside (measureRtt's note). */
  rttNote?: string | null;
  nonce?: string;
  /**
   * A prompt-cache probe's pass (MEASUREMENT.md, "Prompt cache"): both passes of a tick take the same `nonce`,
   * so the second reuses the first's prefix exactly; only their short tails differ.
   */
  cachePass?: 1 | 2;
  /** Largest body read before the stream is cut off as a protocol error. */
  maxStreamBytes?: number;
  /** false: read every event with the full JSON parse (tests check both paths agree). */
  fastPath?: boolean;
  /** Every other secret value the deployment holds, removed from error_detail like the target's own key. */
  redact?: readonly string[];
  /** Keep the reconstructed text (tests, debugging); probes in production leave it off. */
  collectText?: boolean;
  /**
   * When the runtime really handed over the response's headers or a body chunk (`now()` time), where
   * the fetch knows it better than the moment `await` resumes (the CLI's node:http fetch stamps its
   * socket events); undefined falls back to `now()` after the await.
   */
  arrivalOf?: (received: Response | Uint8Array) => number | undefined;
  /** Token cache and token fetch for targets authorised by a service account (probe/auth.ts); one per process or region object. */
  authContext?: AuthContext;
  /** The unconfigured Server-Timing names each target's split_source may take (probe/split-sources.ts); one per process or region object. */
  splitSources?: SplitSourceBook;
  /**
   * Awaited just before t0, after all preparation. In a Worker the clock only advances on I/O, so a
   * zero timer here makes t0 the time of the fetch, not of the last I/O before the preparation.
   */
  beforeT0?: () => Promise<void>;
}

export interface ProbeResult {
  sample: Sample;
  /** Reconstructed output, only with collectText. */
  text?: { answer: string; reasoning: string; tool: string };
}

/** Tokens and split sources of a process that passes none of its own (the CLI). */
const defaultAuthContext: AuthContext = { tokens: new AccessTokenCache() };
const defaultSplitSources = new MemorySplitSourceBook();

interface Failure {
  error: ErrorClass;
  detail: string;
}

/**
 * Sends one streaming completion and returns exactly one sample, also when it fails. Never throws
 * for anything the network or the server does, and never hangs past the total timeout. Should the
 * probe's own code throw on a stream, that is a failed sample of class `internal` too.
 */
export async function runProbe(o: ProbeOptions): Promise<ProbeResult> {
  try {
    return await probeOnce(o);
  } catch (e) {
    // Past the reading loop's own catch (building the request, the figures): the sample says only what failed.
    const sample = newSample(o);
    sample.error = 'internal';
    sample.error_detail = safeDetail(internalDetail(e), [o.target.apiKey, ...(o.redact ?? [])]);
    return { sample };
  }
}

async function probeOnce(o: ProbeOptions): Promise<ProbeResult> {
  const fetchFn: FetchLike = o.fetch ?? ((input, init) => fetch(input, init));
  const now = o.now ?? (() => performance.now());
  const wallClock = o.wallClock ?? (() => Date.now());
  const timeouts: Timeouts = { ...DEFAULT_TIMEOUTS, ...o.timeouts };
  const protocol = protocolFor(o.target.api);
  const maxStreamBytes = o.maxStreamBytes ?? MAX_STREAM_BYTES;
  // The key, and any configured header value long enough to be a credential, never reach error_detail.
  const secrets = [
    o.target.apiKey,
    ...Object.values(o.target.headers ?? {}).filter((v) => v.length >= MIN_SECRET_LENGTH),
    ...authSecrets(o.target.auth),
    ...(o.redact ?? []),
  ];
  const sample = newSample(o);
  let request: BuiltRequest;
  try {
    // Signing, or a service account's token (fetched when the cached one is missing or about to expire): before t0, untimed.
    const nonce = o.nonce ?? randomNonce();
    const cached = o.cachePass === undefined ? null : buildCachePrompt(o.prompt.promptTokens, nonce, o.cachePass);
    request = await authorize(
      protocol.buildRequest({
        target: o.target,
        prompt: cached ? cached.text : buildPrompt(o.prompt.promptTokens, nonce),
        maxTokens: o.prompt.maxTokens,
        ...(cached ? { cacheBreak: cached.cacheBreak } : {}),
      }),
      o.target.auth,
      o.authContext ?? defaultAuthContext,
      tokenTimeoutMs(timeouts),
    );
  } catch (e) {
    if (!(e instanceof AuthError)) throw e;
    // Nothing was sent to the vendor: the sample says why, with no figures.
    sample.started_at = wallClock();
    sample.status = e.status;
    sample.error = e.errorClass;
    sample.error_detail = safeDetail(`authorisation failed: ${e.message}`, secrets);
    return { sample };
  }
  const controller = new AbortController();
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  const onExpire = (_: Expiry): void => {
    controller.abort();
    reader?.cancel().catch(() => {});
  };

  let headersAt: number | null = null;
  let headerTimings: HeaderTimings | null = null;
  let responseHeaders: Headers | null = null;
  let meter: StreamMeter | null = null;
  let failure: Failure | null = null;

  // Nothing the timed path runs between t0 and the first token is run for the first time.
  await warmUp(protocol, timeouts);
  await o.beforeT0?.();
  const wallAtT0 = o.epochOf ? null : wallClock();
  const t0 = now();
  sample.started_at = o.epochOf ? o.epochOf(t0) : wallAtT0!;
  const watchdog = new Watchdog(t0, timeouts, now, onExpire);
  try {
    let response: Response;
    try {
      response = await fetchFn(request.url, { ...request.init, signal: controller.signal, redirect: 'manual' });
    } catch (e) {
      failure = watchdog.expired ?? { error: 'network', detail: describeThrown(e) };
      return finish();
    }
    headersAt = o.arrivalOf?.(response) ?? now();
    watchdog.headersArrived(headersAt);
    sample.status = response.status;
    sample.upstream_colo = upstreamColo(response.headers);
    responseHeaders = response.headers;
    headerTimings = readHeaderTimings(response.headers, o.target.serverTimingMetrics);

    if (response.status < 200 || response.status > 299) {
      const body = await readErrorBody(response);
      failure = {
        error: response.status === 429 ? 'rate_limited' : response.status === 529 ? 'overloaded' : 'http',
        detail: httpErrorDetail(response.status, body, response.headers.get('retry-after')),
      };
      return finish();
    }
    const contentType = response.headers.get('content-type');
    if (contentType && !protocol.contentTypes.some((ct) => contentType.toLowerCase().startsWith(ct))) {
      response.body?.cancel().catch(() => {});
      failure = { error: 'protocol', detail: `unexpected content-type "${contentType}" for an ${protocol.api} stream` };
      return finish();
    }
    if (!response.body) {
      failure = { error: 'truncated', detail: 'response has no body' };
      return finish();
    }

    meter = new StreamMeter(protocol, { collectText: o.collectText, fastPath: o.fastPath });
    reader = response.body.getReader();
    let readError: unknown = null;
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (e) {
        readError = e;
        break;
      }
      const t = (chunk.value && o.arrivalOf?.(chunk.value)) ?? now();
      try {
        if (chunk.done) {
          if (!watchdog.expired) meter.onClose(t);
          break;
        }
        meter.onRead(chunk.value, t);
      } catch (e) {
        failure = { error: 'internal', detail: internalDetail(e) };
        break;
      }
      if (meter.state.readHasToken) watchdog.tokenArrived(t);
      if (meter.finished) break;
      if (meter.bytes > maxStreamBytes) {
        failure = { error: 'protocol', detail: `response larger than ${maxStreamBytes} bytes` };
        break;
      }
    }
    reader.cancel().catch(() => {});
    try {
      meter.settle();
    } catch (e) {
      failure = failure ?? { error: 'internal', detail: internalDetail(e) };
    }
    failure = failure ?? classifyStream(meter, watchdog.expired, readError, protocol.endMarkerRequired) ?? noAnswer(meter);
    return finish();
  } finally {
    watchdog.stop();
  }

  function finish(): ProbeResult {
    // A stream that ended without an answer failed at its end: its figures up to the end stand.
    const failed = failure !== null && failure.error !== 'no_answer';
    fillFigures(sample, { t0, headersAt, meter, headerTimings, rttMs: o.rttMs ?? null, rttNote: o.rttNote, failed });
    sample.split_source = boundedSplitSource(sample.split_source, o.target, o.splitSources ?? defaultSplitSources);
    // Where it was answered: only once something answered (a request that reached nobody was served nowhere).
    const served = responseHeaders ? servedBy(meter?.state.servedBy ?? null, responseHeaders, request.url) : null;
    sample.served_by = served?.value ?? null;
    sample.served_by_source = served?.source ?? null;
    if (failure) {
      sample.error = failure.error;
      sample.error_detail = safeDetail(failure.detail, secrets);
    }
    const result: ProbeResult = { sample };
    if (o.collectText && meter) {
      const s = meter.state;
      result.text = { answer: s.answerText, reasoning: s.reasoningText, tool: s.toolText };
    }
    return result;
  }
}

function classifyStream(meter: StreamMeter, expired: Expiry | null, readError: unknown, endMarkerRequired: boolean): Failure | null {
  const s = meter.state;
  if (expired) return expired;
  if (s.protocolError !== null) return { error: 'protocol', detail: s.protocolError };
  if (s.streamError !== null) return { error: s.streamErrorClass ?? 'stream_error', detail: s.streamError };
  if (readError !== null) {
    return meter.bytes > 0
      ? { error: 'truncated', detail: `stream broke: ${describeThrown(readError)}` }
      : { error: 'network', detail: describeThrown(readError) };
  }
  const complete = s.endMarker || (!endMarkerRequired && s.finishReason !== null);
  if (!complete) {
    return {
      error: 'truncated',
      detail: endMarkerRequired ? 'stream closed before its end marker' : 'stream closed before an end marker or finish reason',
    };
  }
  return null;
}

/** A complete stream without one answer token (MEASUREMENT.md `no_answer`): e.g. a whole budget spent reasoning. */
function noAnswer(meter: StreamMeter): Failure | null {
  if (meter.firstAnswerAt !== null) return null;
  const s = meter.state;
  const reasoning =
    s.reasoningTokens !== null
      ? `${s.reasoningTokens} reasoning tokens`
      : s.reasoningStreamed
        ? 'reasoning streamed, its tokens not reported'
        : 'no reasoning reported';
  const output = s.outputTokens !== null ? `, ${s.outputTokens} output tokens` : '';
  return {
    error: 'no_answer',
    detail: `stream ended without an answer token: finish_reason ${s.finishReason ?? 'none'}, ${reasoning}${output}`,
  };
}

/** What the probe's own code threw: the exception's name and message, never its stack. */
function internalDetail(e: unknown): string {
  return `probe failed on this stream: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`;
}

function describeThrown(e: unknown): string {
  if (e instanceof Error) {
    const cause = (e as Error & { cause?: unknown }).cause;
    const causeText = cause instanceof Error ? `: ${cause.message}` : '';
    return `${e.name}: ${e.message}${causeText}`;
  }
  return String(e);
}

function newSample(o: ProbeOptions): Sample {
  return Object.assign(emptySample(), {
    method_version: METHOD_VERSION,
    target: o.target.id,
    api: o.target.api,
    model: o.target.model,
    prompt_variant: o.prompt.id,
    warm: o.warm ?? false,
    prompt_tokens: o.prompt.promptTokens,
    max_tokens: o.prompt.maxTokens,
  });
}
