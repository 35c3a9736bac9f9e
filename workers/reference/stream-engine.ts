import { planSchedule, type Schedule } from './latency-model.ts';
import { httpStatusOf, RETRY_AFTER_S, TOKENS_BEFORE_BREAK, type Fault } from './faults.ts';
import { answerTokens, reasoningTokens } from './text.ts';
import type { Profile } from './profiles.ts';
import {
  isEmptyWire,
  joinWire,
  wireBytes,
  type Metrics,
  type StreamContext,
  type StreamFormat,
  type Usage,
  type Wire,
} from './formats/format.ts';
import { errorResponse } from './request.ts';
import type { CacheUse } from './formats/format.ts';
import { plannedReasoningTokens, type ReasoningControl } from './reasoning-tokens.ts';
import { honestClaim, impossibleClaim, setTimingHeaders } from './timing-claims.ts';
import { clampHeaderWait, GATEWAY_TIMEOUT, headerDeadlineMs, overCapMessage } from './response-caps.ts';

export interface Completion {
  format: StreamFormat<Wire>;
  model: string;
  promptTokens: number;
  /** What its prompt read from the prompt cache and wrote to it (prefix-cache.ts). */
  cache: CacheUse;
  maxTokens: number;
  stream: boolean;
  includeUsage: boolean;
  /** The request's reasoning effort or thinking budget. */
  reasoning: ReasoningControl;
  profile: Profile;
  fault: Fault | null;
  /** Longest the connection is held without headers (a fault's, or a plan's: response-caps.ts). */
  maxHoldMs: number;
  /** Caps on one response whatever its parameters ask for: its duration from arrival, and its bytes. */
  maxStreamMs: number;
  maxResponseBytes: number;
  /**
   * Which replica serves it: requests share a queue (and a batch) only with requests of the same model
   * from the same region for the same tick (the x-ref-region and x-ref-tick the observatory sends; one
   * shared replica otherwise). A region never probes one target twice at once, so keying by tick changes
   * nothing the observatory sees; it keeps apart callers that measure different ticks at one time (test
   * files sharing one endpoint).
   */
  replica: string;
}

/** Requests in flight on this isolate per replica: the only state, and it lives no longer than the requests. */
const inFlight = new Map<string, number>();
const enter = (replica: string): number => {
  const n = (inFlight.get(replica) ?? 0) + 1;
  inFlight.set(replica, n);
  return n;
};
const leave = (replica: string): void => {
  const n = (inFlight.get(replica) ?? 1) - 1;
  if (n <= 0) inFlight.delete(replica);
  else inFlight.set(replica, n);
};

const sleep = (ms: number) => (ms > 0 ? new Promise<void>((r) => setTimeout(r, ms)) : Promise.resolve());
const PADDING_CHUNK = 'x'.repeat(64 * 1024);

/**
 * Serves one completion on its schedule: max_tokens tokens, reasoning first (streamed, or hidden:
 * decoded on schedule but not sent, save a format's redacted mark where it ends), then the answer,
 * ending with the format's length finish reason. Server-Timing states exactly the time spent
 * before the headers: in headers-at-once mode that is only request handling (queue and prefill
 * come later, on the open stream); in hold mode it is the real queue and prefill, measured, not
 * planned (unless the bad-server-timing fault lies).
 */
export async function serveCompletion(c: Completion, arrived: number): Promise<Response> {
  const status = httpStatusOf(c.fault);
  if (status !== null) {
    const retry: Record<string, string> = status === 429 || status === 503 ? { 'retry-after': String(RETRY_AFTER_S) } : {};
    return withTiming(errorResponse(c.format, status, faultMessage(status), retry), { app: performance.now() - arrived });
  }
  if (c.fault === 'slow-headers') await sleep(Math.min(c.profile.slow_headers_ms, headerDeadlineMs(c)));

  // A replica with a concurrency limit refuses the request beyond it, as vendors do (429, retry-after).
  const concurrent = (inFlight.get(c.replica) ?? 0) + 1;
  if (c.profile.max_concurrent > 0 && concurrent > c.profile.max_concurrent) {
    return counted(
      withTiming(
        errorResponse(c.format, 429, `rate limited: more than ${c.profile.max_concurrent} concurrent requests`, {
          'retry-after': String(RETRY_AFTER_S),
        }),
        { app: performance.now() - arrived },
      ),
      concurrent,
    );
  }
  const n = enter(c.replica);
  const reasoning = plannedReasoningTokens(c.profile, c.reasoning, c.maxTokens, c.fault);
  const schedule = planSchedule(c.profile, c.promptTokens, c.maxTokens, n, Math.random, c.cache.read);
  const ctx: StreamContext = {
    id: crypto.randomUUID().replaceAll('-', ''),
    model: c.model,
    created: Math.floor(Date.now() / 1000),
    promptTokens: c.promptTokens,
    cache: c.cache,
    includeUsage: c.includeUsage,
    state: {},
  };
  const usage: Usage = { promptTokens: c.promptTokens, outputTokens: c.maxTokens, reasoningTokens: reasoning, cache: c.cache };

  if (!c.stream || c.fault === 'wrong-content-type') {
    // The headers leave with the whole body: at the last chunk's time, unless that lies past the caps.
    const planned = schedule.chunks[schedule.chunks.length - 1].at;
    const wait = clampHeaderWait(planned, c);
    try {
      await sleep(arrived + wait.waitMs - performance.now());
    } finally {
      leave(c.replica);
    }
    if (wait.overCap) return counted(overCap(c, 'the whole response', planned, arrived), n);
    const body = c.format.nonStreamed(ctx, answerTokens(0, c.maxTokens - reasoning), usage, performance.now() - arrived);
    return counted(
      withTiming(new Response(body, { headers: { 'content-type': 'application/json' } }), { app: performance.now() - arrived }, c),
      n,
    );
  }

  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const headers = { 'content-type': c.format.contentType, 'cache-control': 'no-cache' };
  const run = new StreamRun(c, ctx, schedule, usage, reasoning, arrived, writer);

  if (c.profile.headers_at_once === 1) {
    const response = counted(
      withTiming(new Response(readable, { headers }), { queue: 0, prefill: 0, app: performance.now() - arrived }, c),
      n,
    );
    run.produce(0).finally(() => closeQuietly(writer));
    return response;
  }
  // Hold mode: queue and prefill happen before the headers, which leave together with the first chunk.
  // One timer for both phases: each timer adds its own lateness, which the runtime's clock cannot see.
  const handling = performance.now() - arrived;
  const wait = clampHeaderWait(schedule.chunks[0].at, c);
  await sleep(arrived + wait.waitMs - performance.now());
  if (wait.overCap) {
    leave(c.replica);
    return counted(overCap(c, 'the first token', schedule.chunks[0].at, arrived), n);
  }
  run.queueFirstChunk();
  const spent = performance.now() - arrived;
  const queued = Math.min(schedule.queueMs, spent - handling);
  const response = counted(
    withTiming(new Response(readable, { headers }), { queue: queued, prefill: spent - queued - handling, app: handling }, c),
    n,
  );
  run.produce(1).finally(() => closeQuietly(writer));
  return response;
}

/** A response whose headers were planned past the caps, answered at them (response-caps.ts). */
function overCap(c: Completion, what: string, plannedMs: number, arrived: number): Response {
  return withTiming(errorResponse(c.format, GATEWAY_TIMEOUT, overCapMessage(what, plannedMs, c)), { app: performance.now() - arrived });
}

/** A response reached its global cap (duration or bytes): it ends there, without its end event. */
class CapReached extends Error {}

/** One stream on its schedule, with the request's fault applied once. */
class StreamRun {
  private generatedTokens = 0;
  private bytesSent = 0;
  private firstChunkAt = 0;
  private struck = false;
  private readonly c: Completion;
  private readonly ctx: StreamContext;
  private readonly schedule: Schedule;
  private readonly usage: Usage;
  private readonly reasoning: number;
  private readonly arrived: number;
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;

  constructor(
    c: Completion,
    ctx: StreamContext,
    schedule: Schedule,
    usage: Usage,
    reasoning: number,
    arrived: number,
    writer: WritableStreamDefaultWriter<Uint8Array>,
  ) {
    this.c = c;
    this.ctx = ctx;
    this.schedule = schedule;
    this.usage = usage;
    this.reasoning = reasoning;
    this.arrived = arrived;
    this.writer = writer;
  }

  private send(piece: Wire): Promise<void> {
    if (isEmptyWire(piece)) return Promise.resolve();
    const bytes = wireBytes(piece);
    this.bytesSent += bytes.byteLength;
    if (this.bytesSent > this.c.maxResponseBytes) return Promise.reject(new CapReached(`over ${this.c.maxResponseBytes} bytes`));
    // Every write, a fault's padding and keep-alives included, within the duration cap (a slow reader's too).
    if (this.leftMs() < 0) return Promise.reject(new CapReached(`over ${this.c.maxStreamMs} ms`));
    return this.writer.write(bytes);
  }

  /** What is left of the response's duration cap. */
  private leftMs(): number {
    return this.c.maxStreamMs - (performance.now() - this.arrived);
  }

  /** Sleeps until `due` (performance.now() time), unless that lies past the response's duration cap. */
  private async until(due: number): Promise<void> {
    if (due - this.arrived > this.c.maxStreamMs) throw new CapReached(`over ${this.c.maxStreamMs} ms`);
    await sleep(due - performance.now());
  }

  /** Hold mode: the opening events and the first chunk wait in the stream for the headers. */
  queueFirstChunk(): void {
    this.firstChunkAt = performance.now();
    this.send(joinWire([this.c.format.open(this.ctx), this.chunkWire(0)])).catch(() => {});
  }

  /** Streams chunks from index `from` on schedule, then the end; never throws. */
  async produce(from: number): Promise<void> {
    try {
      if (from === 0) {
        await this.send(this.c.format.open(this.ctx));
        await this.keepAliveUntil(this.arrived + this.schedule.chunks[0].at);
        this.firstChunkAt = performance.now();
        await this.send(this.chunkWire(0));
      }
      for (let i = 1; i < this.schedule.chunks.length; i++) {
        if (await this.faultStrikes(false)) return;
        await this.until(this.arrived + this.schedule.chunks[i].at);
        await this.send(this.chunkWire(i));
      }
      if (await this.faultStrikes(true)) return;
      await this.send(this.c.format.close(this.ctx, this.usage, this.metrics(), performance.now() - this.arrived));
    } catch {
      // the client closed the connection, or the response reached a global cap (CapReached): it ends here
    } finally {
      leave(this.c.replica);
    }
  }

  /** Waits until `due`, sending the format's keep-alive every keep_alive_ms meanwhile. */
  private async keepAliveUntil(due: number): Promise<void> {
    const every = this.c.profile.keep_alive_ms;
    const keepAlive = this.c.format.keepAlive(this.ctx);
    if (every > 0 && !isEmptyWire(keepAlive)) {
      while (due - performance.now() > every) {
        await this.until(performance.now() + every);
        await this.send(keepAlive);
      }
    }
    await this.until(due);
  }

  /**
   * The chunk's tokens in the format: empty when all of them are hidden reasoning, except that the
   * chunk in which hidden reasoning ends carries the format's mark for it, if it has one.
   */
  private chunkWire(i: number): Wire {
    const tokens = this.schedule.chunks[i].tokens;
    const f = this.c.format;
    const pieces: Wire[] = [];
    const end = this.generatedTokens + tokens;
    if (this.c.profile.reasoning_streamed === 1) {
      for (let n = this.generatedTokens; n < end && n < this.reasoning; n++) pieces.push(f.reasoning(this.ctx, reasoningTokens(n, 1)));
    } else if (f.hiddenReasoning && this.reasoning > 0 && this.generatedTokens < this.reasoning && end >= this.reasoning) {
      pieces.push(f.hiddenReasoning(this.ctx, this.reasoning));
    }
    const answerFrom = Math.max(this.generatedTokens, this.reasoning);
    const answerCount = end - answerFrom;
    if (answerCount > 0) {
      const words = answerTokens(answerFrom - this.reasoning, answerCount);
      pieces.push(this.c.fault === 'huge' ? f.padded(this.ctx, words, PADDING_CHUNK) : f.answer(this.ctx, words));
    }
    this.generatedTokens = end;
    return joinWire(pieces);
  }

  /** Applies the stream fault once enough tokens went out; true when the stream must end now. */
  private async faultStrikes(atEnd: boolean): Promise<boolean> {
    const fault = this.c.fault;
    if (fault === null || this.struck) return false;
    const threshold = fault === 'stall' ? this.c.profile.stall_after_tokens : TOKENS_BEFORE_BREAK;
    if (fault === 'huge' ? !atEnd : this.generatedTokens < threshold && !atEnd) return false;
    this.struck = true;
    switch (fault) {
      case 'stall':
        await sleep(Math.min(this.c.profile.stall_ms, this.c.maxHoldMs, this.leftMs()));
        return true;
      case 'close-early':
        return true;
      case 'malformed':
        await this.send(this.c.format.malformed(this.ctx));
        return false;
      case 'error-event':
        await this.send(this.c.format.errorEvent(this.ctx, 'reference endpoint: injected error'));
        return true;
      case 'huge': {
        const chunks = Math.ceil((this.c.profile.huge_mb * 1024 * 1024) / PADDING_CHUNK.length);
        for (let i = 0; i < chunks; i++) await this.send(this.c.format.padded(this.ctx, '', PADDING_CHUNK));
        return false;
      }
      default: // no-answer and bad-server-timing shape the request, not the stream
        return false;
    }
  }

  private metrics(): Metrics | null {
    if (this.c.profile.vendor_timing !== 1) return null;
    const queue = this.schedule.queueMs;
    return {
      queue_time_ms: round(queue),
      time_to_first_token_ms: round(this.firstChunkAt - this.arrived - queue),
      generation_time_ms: round(performance.now() - this.firstChunkAt),
    };
  }
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

function faultMessage(status: number): string {
  if (status === 429) return 'Rate limit reached (reference endpoint: injected fault)';
  if (status === 529) return 'Overloaded (reference endpoint: injected fault)';
  if (status === 503) return 'Service unavailable (reference endpoint: injected fault)';
  return 'Internal server error (reference endpoint: injected fault)';
}

/** Adds Server-Timing (and, with vendor timings, openai-processing-ms) for the time spent before headers. */
function withTiming(response: Response, parts: Record<string, number>, c?: Completion): Response {
  const claim = c?.fault === 'bad-server-timing' ? impossibleClaim(c.profile.bad_server_timing_ms) : honestClaim(parts);
  setTimingHeaders(response.headers, claim, c?.profile.vendor_timing === 1);
  return response;
}

/** How many requests its replica was serving when a request arrived (itself included): what its queue and decode were planned for. */
export const IN_FLIGHT_HEADER = 'x-ref-in-flight';
function counted(response: Response, n: number): Response {
  response.headers.set(IN_FLIGHT_HEADER, String(n));
  return response;
}

async function closeQuietly(writer: WritableStreamDefaultWriter<Uint8Array>): Promise<void> {
  try {
    await writer.close();
  } catch {
    // already errored by a departed client
  }
}
