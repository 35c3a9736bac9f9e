/**
 * One poll of a vendor's Statuspage: a conditional GET of its incidents list (If-None-Match and
 * If-Modified-Since from the last answer that brought a change), bounded in time (headers and body
 * together), in bytes (the body is read a chunk at a time and dropped past the cap, never parsed
 * whole first) and in counts (statuspage.ts: a list past its cap is refused before any entry is read).
 * Every failure is one of a few kinds, in words. `fetch` is a parameter, so this runs
 * in workerd, Node and tests alike.
 */
import { concatBytes } from '../bytes.ts';
import {
  parseIncidentsBody,
  StatuspageFormatError,
  StatuspageTooLargeError,
  STATUSPAGE_INCIDENTS_PATH,
  VENDOR_BODY_MAX_BYTES,
  VENDOR_POLL_TIMEOUT_MS,
  type ParsedIncidents,
} from './statuspage.ts';

export const POLL_FAILURES = ['timeout', 'unreachable', 'http', 'too_large', 'malformed'] as const;
export type PollFailure = (typeof POLL_FAILURES)[number];

export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

export type PollOutcome =
  /** 304: nothing changed since the validators' answer. */
  { kind: 'unchanged' } | ({ kind: 'fetched' } & ParsedIncidents & Validators) | { kind: 'failed'; failure: PollFailure; error: string };

export interface PollLimits {
  timeoutMs: number;
  maxBytes: number;
}

export const DEFAULT_POLL_LIMITS: PollLimits = { timeoutMs: VENDOR_POLL_TIMEOUT_MS, maxBytes: VENDOR_BODY_MAX_BYTES };

class Timeout extends Error {}

/** The page's incidents URL: its address with the list's path (a trailing slash dropped). */
export function incidentsUrl(page: string): string {
  return page.replace(/\/+$/, '') + STATUSPAGE_INCIDENTS_PATH;
}

const failed = (failure: PollFailure, error: string): PollOutcome => ({ kind: 'failed', failure, error: error.slice(0, 200) });
const bytes = (n: number) => n.toLocaleString('en-US');

export async function pollStatuspage(
  page: string,
  validators: Validators,
  fetchImpl: typeof fetch,
  limits: PollLimits = DEFAULT_POLL_LIMITS,
): Promise<PollOutcome> {
  const controller = new AbortController();
  // One deadline for the headers and every read of the body: a page that trickles its body is cut off too.
  let expire = () => {};
  const deadline = new Promise<never>((_, reject) => {
    expire = () => reject(new Timeout());
  });
  deadline.catch(() => {});
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    expire();
    controller.abort();
  }, limits.timeoutMs);
  const seconds = `${limits.timeoutMs / 1000} s`;
  try {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'llm-latency-observatory (vendor status poll)' };
    if (validators.etag) headers['if-none-match'] = validators.etag;
    if (validators.lastModified) headers['if-modified-since'] = validators.lastModified;
    let response: Response;
    try {
      response = await Promise.race([fetchImpl(incidentsUrl(page), { headers, signal: controller.signal }), deadline]);
    } catch (e) {
      if (e instanceof Timeout || timedOut) return failed('timeout', `no answer within ${seconds}`);
      return failed('unreachable', `could not be reached: ${(e as Error).message}`);
    }
    if (response.status === 304) {
      await response.body?.cancel().catch(() => {});
      return { kind: 'unchanged' };
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => {});
      return failed('http', `answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}, not 200`);
    }
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > limits.maxBytes) {
      await response.body?.cancel().catch(() => {});
      return failed('too_large', `its body is ${bytes(declared)} bytes, over the ${bytes(limits.maxBytes)} read at most; not read`);
    }
    let body: Uint8Array;
    try {
      const read = await readAtMost(response, limits.maxBytes, deadline);
      if (read === null)
        return failed('too_large', `its body passed the ${bytes(limits.maxBytes)} bytes read at most; the rest was not read`);
      body = read;
    } catch (e) {
      if (e instanceof Timeout || timedOut) return failed('timeout', `its body did not arrive within ${seconds}`);
      return failed('unreachable', `its body broke off: ${(e as Error).message}`);
    }
    try {
      return {
        kind: 'fetched',
        ...parseIncidentsBody(body),
        etag: response.headers.get('etag'),
        lastModified: response.headers.get('last-modified'),
      };
    } catch (e) {
      if (e instanceof StatuspageFormatError) return failed('malformed', e.message);
      if (e instanceof StatuspageTooLargeError) return failed('too_large', `${e.message}; not read`);
      throw e;
    }
  } finally {
    clearTimeout(timer);
  }
}

/** The whole body, or null once it passes `max` bytes (then the stream is let go); every read races the deadline. */
async function readAtMost(response: Response, max: number, deadline: Promise<never>): Promise<Uint8Array | null> {
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), deadline]);
      if (done) break;
      total += value.byteLength;
      if (total > max) return null;
      chunks.push(value);
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  return concatBytes(chunks);
}
