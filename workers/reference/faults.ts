/**
 * Fault injection, selected per request by the `x-ref-fault` header or a `~fault` model suffix:
 * - http-429, http-500, http-503, http-529: that status at once, in the format's error shape;
 * - slow-headers: headers held for slow_headers_ms; stall: silence for stall_ms after stall_after_tokens;
 * - close-early, malformed, error-event: the stream breaks after TOKENS_BEFORE_BREAK tokens;
 * - wrong-content-type: a whole JSON response instead of a stream; huge: huge_mb of padding;
 * - no-answer: the whole max_tokens goes to reasoning, whatever the budget: no answer token, the
 *   format's length finish reason, usage all reasoning;
 * - bad-server-timing: the headers claim bad_server_timing_ms of server time before them (Server-Timing
 *   `total`, and openai-processing-ms with vendor timings), far more than really passed: an
 *   impossible claim (with a headers-at-once profile the response starts at once).
 */
export const FAULTS = [
  'http-429',
  'http-500',
  'http-503',
  'http-529',
  'slow-headers',
  'stall',
  'close-early',
  'malformed',
  'error-event',
  'wrong-content-type',
  'huge',
  'no-answer',
  'bad-server-timing',
] as const;
export type Fault = (typeof FAULTS)[number];

export class FaultError extends Error {}

/** Splits `model~fault` and reads the header; the header wins. Unknown names are a 400, not a guess. */
export function selectFault(model: string, header: string | null): { model: string; fault: Fault | null } {
  const tilde = model.indexOf('~');
  const baseModel = tilde === -1 ? model : model.slice(0, tilde);
  const name = header?.trim() || (tilde === -1 ? '' : model.slice(tilde + 1));
  if (name === '') return { model: baseModel, fault: null };
  if (!(FAULTS as readonly string[]).includes(name)) throw new FaultError(`unknown fault "${name}"; known: ${FAULTS.join(', ')}`);
  return { model: baseModel, fault: name as Fault };
}

export function httpStatusOf(fault: Fault | null): number | null {
  switch (fault) {
    case 'http-429':
      return 429;
    case 'http-500':
      return 500;
    case 'http-503':
      return 503;
    case 'http-529':
      return 529;
    default:
      return null;
  }
}

/** Tokens a stream generates (hidden reasoning included) before the fault strikes. */
export const TOKENS_BEFORE_BREAK = 3;
/** Seconds a client is told to wait after a 429 or 503. */
export const RETRY_AFTER_S = 2;
