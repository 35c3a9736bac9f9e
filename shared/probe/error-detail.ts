import { ERROR_BODY_LIMIT_BYTES, ERROR_DETAIL_MAX_CHARS } from '../constants.ts';
import { describeError } from './protocols/protocol.ts';
import { readBounded } from './bounded-body.ts';

/**
 * Vendor key shapes that must never reach a log, the database or the site: OpenAI and Anthropic
 * (`sk-`, `sk-ant-`), Groq (`gsk_`), Hugging Face (`hf_`), Fireworks (`fw_`), Replicate (`r8_`),
 * Perplexity (`pplx-`), NVIDIA (`nvapi-`), xAI (`xai-`), Cerebras (`csk-`), OpenRouter (`sk-or-`),
 * Google (`AIza…`), AWS access keys (`AKIA…`), GitHub tokens, JWTs, and bearer or basic credentials.
 */
const SECRET_PATTERNS = [
  /\b(?:sk|pk|rk|xai|csk|pplx|nvapi)-[A-Za-z0-9_-]{8,}/g,
  /\b(?:gsk|hf|fw|r8|ghp|gho|ghs|github_pat|glpat|whsec)_[A-Za-z0-9_-]{8,}/g,
  /\bAIza[0-9A-Za-z_-]{20,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g,
];
const CREDENTIAL = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/-]+=*/gi;
const QUERY_SECRET = /([?&](?:key|api_key|apikey|api-key|token|access_token|sig|signature)=)[^&\s]+/gi;
/** A configured secret is also removed where only its start appears (a body cut short, a log line): from this many characters on. */
export const SECRET_PREFIX_CHARS = 8;

/**
 * `text` with every configured secret removed, also any part of one from its first
 * SECRET_PREFIX_CHARS characters on (short secrets only whole), and every vendor key shape. Runs
 * before any cut, so a key that straddles a cut is never left as a prefix.
 */
export function redact(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue;
    if (secret.length < SECRET_PREFIX_CHARS) {
      out = out.split(secret).join('[redacted]');
      continue;
    }
    const head = secret.slice(0, SECRET_PREFIX_CHARS);
    for (let at = out.indexOf(head); at !== -1; at = out.indexOf(head, at + 1)) {
      let end = at + SECRET_PREFIX_CHARS;
      while (end < out.length && end - at < secret.length && out[end] === secret[end - at]) end++;
      out = `${out.slice(0, at)}[redacted]${out.slice(end)}`;
    }
  }
  out = out.replace(QUERY_SECRET, '$1[redacted]');
  out = out.replace(CREDENTIAL, '$1 [redacted]');
  for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, '[redacted]');
  return out;
}

/** Short, secret-free, publishable text: redacted first, then cut. `secrets` are exact values to remove as well. */
export function safeDetail(text: string, secrets: readonly (string | undefined)[] = []): string {
  const out = redact(text, secrets).replace(/\s+/g, ' ').trim();
  return out.length > ERROR_DETAIL_MAX_CHARS ? `${out.slice(0, ERROR_DETAIL_MAX_CHARS - 1)}…` : out;
}

/** Reads at most ERROR_BODY_LIMIT_BYTES of an error body, then lets go of the stream. */
export async function readErrorBody(response: Response): Promise<string> {
  return (await readBounded(response, ERROR_BODY_LIMIT_BYTES)).text;
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
    // Cut by safeDetail, after redaction: a key straddling a cut here would survive as a prefix.
    what = body.trim();
  }
  const retry = retryAfter ? ` (retry-after ${retryAfter})` : '';
  return `HTTP ${status}${what ? ` ${what}` : ''}${retry}`;
}
