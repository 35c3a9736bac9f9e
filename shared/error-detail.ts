import { ERROR_BODY_LIMIT_BYTES, ERROR_DETAIL_MAX_CHARS } from './constants.ts';
import { describeError } from './protocols/protocol.ts';

/** Patterns of secrets that must never reach a log, the database or the site. */
const SECRET_PATTERNS = [
  /\b(?:sk|pk|rk|gsk|xai|csk)-[A-Za-z0-9_\-]{8,}/g,
  /\bAIza[0-9A-Za-z_\-]{20,}/g,
  /\bBearer\s+[A-Za-z0-9._~+\/\-]+=*/gi,
];
const QUERY_SECRET = /([?&](?:key|api_key|apikey|token)=)[^&\s]+/gi;

/** Short, secret-free, publishable text. `secrets` are exact values to remove as well. */
export function safeDetail(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  out = out.replace(QUERY_SECRET, '$1[redacted]');
  for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, '[redacted]');
  out = out.replace(/\s+/g, ' ').trim();
  return out.length > ERROR_DETAIL_MAX_CHARS ? out.slice(0, ERROR_DETAIL_MAX_CHARS - 1) + '…' : out;
}

/** Reads at most ERROR_BODY_LIMIT_BYTES of an error body, then lets go of the stream. */
export async function readErrorBody(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  try {
    while (bytes < ERROR_BODY_LIMIT_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // a body that fails mid-read still yields what arrived
  } finally {
    reader.cancel().catch(() => {});
  }
  return text.slice(0, ERROR_BODY_LIMIT_BYTES);
}

/** `HTTP 429 rate_limit_exceeded: …` from a status and an error body in any vendor's shape. */
export function httpErrorDetail(status: number, body: string, retryAfter: string | null): string {
  let what = '';
  try {
    const parsed = JSON.parse(body);
    const top = Array.isArray(parsed) ? parsed[0] : parsed;
    const error = top?.error;
    what = describeError(error && typeof error === 'object' ? error : top);
  } catch {
    what = body.trim().slice(0, 120);
  }
  const retry = retryAfter ? ` (retry-after ${retryAfter})` : '';
  return `HTTP ${status}${what ? ' ' + what : ''}${retry}`;
}
