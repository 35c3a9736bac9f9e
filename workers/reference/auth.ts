/**
 * Who may use the endpoint: with a REFERENCE_TOKEN, requests that carry it (compared in constant
 * time) in a place their vendor's clients put a key; without one, anyone. Each route names its
 * vendor's places; Bedrock, which also takes SigV4, has its own (bedrock-auth.ts).
 */
import { sameSecret } from '../common/same-secret.ts';

/** What the endpoint is configured with: its token (none: anyone may come in, where REFERENCE_OPEN lets it serve at all). */
export interface Access {
  token: string | undefined;
}

/** Why a request is refused: its status, message and any vendor headers (an AWS error type). */
export interface AuthFailure {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

/** Checks one request; `body` reads it (once, within the size cap) for schemes that sign it. */
export type Authenticate = (request: Request, access: Access, body: () => Promise<Uint8Array>) => Promise<AuthFailure | null>;

/** Where a key may be besides `Authorization: Bearer`: headers, and a query parameter. */
export interface KeyPlaces {
  headers: readonly string[];
  query?: string;
}

/** OpenAI, Anthropic and Gemini: Bearer, x-api-key, x-goog-api-key or ?key=. */
export const VENDOR_KEY_PLACES: KeyPlaces = { headers: ['x-api-key', 'x-goog-api-key'], query: 'key' };
/** Azure OpenAI: `api-key` (or Bearer). */
export const AZURE_KEY_PLACES: KeyPlaces = { headers: ['api-key'] };
/** Bedrock API keys: Bearer only. */
export const BEARER_ONLY: KeyPlaces = { headers: [] };

/** The key the request carries in one of `places`, or null. */
export function presentedKey(request: Request, places: KeyPlaces): string | null {
  const h = request.headers;
  const bearer = h.get('authorization')?.replace(/^Bearer\s+/i, '');
  if (bearer !== undefined) return bearer;
  for (const name of places.headers) {
    const value = h.get(name);
    if (value !== null) return value;
  }
  return places.query ? new URL(request.url).searchParams.get(places.query) : null;
}

export async function tokenMatches(
  expected: string | undefined,
  request: Request,
  places: KeyPlaces = VENDOR_KEY_PLACES,
): Promise<boolean> {
  if (!expected) return true;
  return sameSecret(presentedKey(request, places) ?? '', expected);
}

/** The usual check: the token in one of `places`, else `status` with `message`. */
export function keyAuth(places: KeyPlaces, status = 401, message = 'missing or wrong API key'): Authenticate {
  return async (request, access) => (access.token && !(await tokenMatches(access.token, request, places)) ? { status, message } : null);
}
