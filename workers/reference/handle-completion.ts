import { keyAuth, VENDOR_KEY_PLACES, type Authenticate } from './auth.ts';
import { FaultError, selectFault } from './faults.ts';
import { activeFault, parseSchedules } from './scheduled-faults.ts';
import { ParamError, resolveProfile } from './profiles.ts';
import {
  errorResponse,
  estimateTokens,
  parseJsonObject,
  readBody,
  RequestError,
  DEFAULT_MAX_TOKENS,
  type ParsedRequest,
} from './request.ts';
import { serveCompletion } from './stream-engine.ts';
import { usePrefixCache } from './prefix-cache.ts';
import type { StreamFormat, Wire } from './formats/format.ts';

export interface Limits {
  maxTokensCap: number;
  maxBodyBytes: number;
  maxHoldMs: number;
  maxStreamMs: number;
  maxResponseBytes: number;
  token: string | undefined;
  /** REFERENCE_OPEN = "true": serve without a token (local runs); otherwise a deployment without one refuses. */
  open: boolean;
  /** SCHEDULED_FAULTS: regional faults on a schedule (scheduled-faults.ts), for every request. */
  scheduledFaults: string | undefined;
}

export function limitsFrom(env: Env): Limits {
  return {
    maxTokensCap: Number(env.MAX_TOKENS_CAP),
    maxBodyBytes: Number(env.MAX_BODY_BYTES),
    maxHoldMs: Number(env.MAX_HOLD_MS),
    maxStreamMs: Number(env.MAX_STREAM_MS),
    maxResponseBytes: Number(env.MAX_RESPONSE_BYTES),
    token: (env as { REFERENCE_TOKEN?: string }).REFERENCE_TOKEN,
    open: (env as { REFERENCE_OPEN?: string }).REFERENCE_OPEN === 'true',
    scheduledFaults: env.SCHEDULED_FAULTS,
  };
}

/** The key check of the OpenAI, Anthropic and Gemini routes. */
const vendorKeyAuth = keyAuth(VENDOR_KEY_PLACES);

/** Parses, checks and serves one completion request in the given wire format; `authenticate` says who may. */
export async function handleCompletion(
  request: Request,
  limits: Limits,
  format: StreamFormat<Wire>,
  parse: (body: Record<string, unknown>) => ParsedRequest,
  authenticate: Authenticate = vendorKeyAuth,
): Promise<Response> {
  const arrived = performance.now();
  if (!limits.token && !limits.open) {
    return errorResponse(
      format,
      503,
      'this reference endpoint has no REFERENCE_TOKEN: set one (npx wrangler secret put REFERENCE_TOKEN -c workers/reference/wrangler.toml), or set REFERENCE_OPEN = "true" to serve anyone',
    );
  }
  let body: Promise<Uint8Array> | undefined;
  const readOnce = () => (body ??= readBody(request, limits.maxBodyBytes));
  try {
    const refused = await authenticate(request, limits, readOnce);
    if (refused) return errorResponse(format, refused.status, refused.message, refused.headers);
    const parsed = parse(parseJsonObject(await readOnce()));
    const selected = selectFault(parsed.model, request.headers.get('x-ref-fault'));
    const { model } = selected;
    const profile = resolveProfile(model, request.headers.get('x-ref-params'));
    const scheduled = activeFault(
      [...parseSchedules(request.headers.get('x-ref-scheduled-fault')), ...parseSchedules(limits.scheduledFaults)],
      request.headers.get('x-ref-region'),
      Number(request.headers.get('x-ref-tick') ?? NaN),
    );
    const fault = selected.fault ?? scheduled?.fault ?? null;
    if (scheduled) profile.prefill_base_ms += scheduled.slowMs;
    return await serveCompletion(
      {
        format,
        model,
        promptTokens: estimateTokens(parsed.promptText),
        cache: usePrefixCache(`${model}|${request.headers.get('x-ref-region') ?? ''}`, parsed.cacheable, Date.now()),
        maxTokens: Math.min(parsed.maxTokens ?? DEFAULT_MAX_TOKENS, limits.maxTokensCap),
        stream: parsed.stream,
        includeUsage: parsed.includeUsage,
        reasoning: parsed.reasoning,
        profile,
        fault,
        maxHoldMs: limits.maxHoldMs,
        maxStreamMs: limits.maxStreamMs,
        maxResponseBytes: limits.maxResponseBytes,
        replica: `${model}|${request.headers.get('x-ref-region') ?? ''}|${request.headers.get('x-ref-tick') ?? ''}`,
      },
      arrived,
    );
  } catch (e) {
    if (e instanceof RequestError) return errorResponse(format, e.status, e.message);
    if (e instanceof FaultError || e instanceof ParamError) return errorResponse(format, 400, e.message);
    throw e;
  }
}
