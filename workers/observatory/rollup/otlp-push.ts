/** Pushes one region's rollups of an hour to the configured OTLP/HTTP collector (JSON encoding). */
import { otlpMetricsRequest, type OtlpConfig } from '../../../shared/rollup/otlp.ts';
import { METHOD_VERSION } from '../../../shared/constants.ts';
import type { Rollup } from '../../../shared/rollup/rollup.ts';
import { readErrorBody, safeDetail } from '../../../shared/probe/error-detail.ts';
import { secretValues } from '../secret-values.ts';

/** Longest wait for the collector's answer to one push. */
export const OTLP_PUSH_TIMEOUT_MS = 10_000;

/** Why a push failed: published on /api/v1/health, so redacted before it is cut (safeDetail). */
export class OtlpPushError extends Error {}

/** The endpoint itself, or the Worker variable `{VAR}` names. */
export function otlpEndpoint(config: OtlpConfig, env: Record<string, unknown>): string {
  const named = /^\{([A-Z][A-Z0-9_]*)\}$/.exec(config.endpoint);
  if (!named) return config.endpoint;
  const value = env[named[1]];
  if (typeof value !== 'string' || value === '')
    throw new OtlpPushError(`otlp.endpoint names the Worker variable ${named[1]}, which is not set`);
  return value;
}

export async function pushToOtlp(config: OtlpConfig, env: Record<string, unknown>, rows: Rollup[]): Promise<void> {
  if (rows.length === 0) return;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (config.header && config.secret) {
    const secret = env[config.secret];
    if (typeof secret !== 'string' || secret === '')
      throw new OtlpPushError(`the Worker secret ${config.secret} for otlp.header is not set (wrangler secret put ${config.secret})`);
    headers[config.header] = secret;
  }
  const url = otlpEndpoint(config, env);
  const host = new URL(url).host;
  let response: Response;
  try {
    // Never to another URL than the one configured: a redirect would carry the secret header with it.
    response = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify(otlpMetricsRequest(rows, `method ${METHOD_VERSION}`)),
      signal: AbortSignal.timeout(OTLP_PUSH_TIMEOUT_MS),
      redirect: 'manual',
    });
  } catch (e) {
    throw new OtlpPushError(
      safeDetail(`OTLP collector ${host} gave no answer: ${e instanceof Error ? e.message : String(e)}`, secretValues(env)),
    );
  }
  // OTLP/HTTP: 2xx is accepted (a partial success still is); anything else is retried later.
  if (!response.ok) {
    const reply = response.status >= 300 && response.status < 400 ? 'a redirect, not followed' : await readErrorBody(response);
    // Redacted before it is cut: a secret the collector echoes across the cut would otherwise leave its start behind.
    throw new OtlpPushError(safeDetail(`OTLP collector ${host} answered ${response.status}: ${reply}`, secretValues(env)));
  }
  await response.body?.cancel();
}
