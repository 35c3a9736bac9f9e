/** The Cloudflare colo this object really runs in, read from /cdn-cgi/trace and cached in its storage. */
import { HOUR_MS } from '../../shared/time.ts';

export const COLO_REFRESH_MS = 6 * HOUR_MS;
const TRACE_TIMEOUT_MS = 5_000;

export function parseTrace(text: string): string | null {
  const match = /^colo=([A-Z]{3})$/m.exec(text);
  return match ? match[1] : null;
}

export async function fetchColo(traceUrl: string): Promise<string | null> {
  if (!traceUrl) return null;
  try {
    const response = await fetch(traceUrl, { signal: AbortSignal.timeout(TRACE_TIMEOUT_MS) });
    return response.ok ? parseTrace(await response.text()) : null;
  } catch {
    return null;
  }
}
