/**
 * How a request is authorised, beyond the bearer token or key header each protocol adds itself: an
 * AWS SigV4 signature (Bedrock with IAM credentials), a Google service account's access token (Vertex
 * AI), or a key in a header of the target's choosing (Azure's `api-key`). Run before t0, so none of it
 * is timed: signing, and a token fetch when the cached token is missing or about to expire.
 *
 * Libraries made for the job, each on WebCrypto and so the same in workerd and Node: aws4fetch signs
 * (SigV4), jose signs the service account's JWT (RS256).
 */
import { AwsV4Signer } from 'aws4fetch';
import { importPKCS8, SignJWT } from 'jose';
import type { BuiltRequest } from './protocols/protocol.ts';
import { regionOfHost } from './served-by.ts';
import { readBounded } from './bounded-body.ts';
import type { ErrorClass, FetchLike, ResolvedAuth, ServiceAccountKey, Timeouts } from '../types.ts';
import { MINUTE_MS } from '../time.ts';

export type { ResolvedAuth, ServiceAccountKey } from '../types.ts';

export const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';
export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
/** Lifetime asked for a service-account assertion or self-signed token (Google's maximum). */
const TOKEN_LIFETIME_S = 3_600;
/** A cached token is renewed this long before it expires, so no probe starts with one about to lapse. */
export const TOKEN_RENEW_BEFORE_MS = 5 * MINUTE_MS;
/** Longest token answer read (a token response is about 1 KiB): reading stops at it. */
export const TOKEN_BODY_LIMIT = 64 * 1024;
/**
 * Longest wait for a token endpoint's whole answer (Google's takes well under a second). A probe waits
 * at most the least of this, its headers timeout and its total bound (tokenTimeoutMs): a token endpoint
 * that never answers gives a failed sample within the probe's own bound, and holds only its own lane.
 */
export const TOKEN_TIMEOUT_MS = 10_000;

/** How long a probe with these timeouts waits for a token. */
export const tokenTimeoutMs = (t: Pick<Timeouts, 'headersMs' | 'totalMs'>): number => Math.min(TOKEN_TIMEOUT_MS, t.headersMs, t.totalMs);

/**
 * An authorisation step that failed (no token, a bad key): the probe's sample says what, before anything
 * was timed. Its class (MEASUREMENT.md): `http` when the token endpoint answered with an error status,
 * `timeout_headers` when it gave no whole answer in time, else `network`. The message is not cut: the
 * sample's detail is cut after redaction (safeDetail), so no secret in it survives as a prefix.
 */
export class AuthError extends Error {
  /** The token endpoint's HTTP status, when it answered. */
  readonly status: number | null;
  readonly errorClass: ErrorClass;

  constructor(message: string, status: number | null = null, errorClass?: ErrorClass) {
    super(message);
    this.status = status;
    this.errorClass = errorClass ?? (status === null ? 'network' : 'http');
  }
}

interface CachedToken {
  token: string;
  expiresAt: number;
}

/**
 * Access tokens by service account, kept until shortly before they expire. One per regional object
 * (and one per CLI process): a token is fetched at most once an hour per account and region.
 */
export class AccessTokenCache {
  private readonly tokens = new Map<string, CachedToken>();
  /** Token requests made (a test and the subrequest budget count them). */
  fetches = 0;

  get(key: string, now: number): string | null {
    const t = this.tokens.get(key);
    return t && t.expiresAt - TOKEN_RENEW_BEFORE_MS > now ? t.token : null;
  }

  put(key: string, token: string, expiresAt: number): void {
    this.tokens.set(key, { token, expiresAt });
  }
}

export interface AuthContext {
  tokens: AccessTokenCache;
  /** Fetch for token requests (a Worker counts them in its subrequest budget). */
  fetch?: FetchLike;
  /** Wall clock, epoch ms. */
  now?: () => number;
}

/** The request with its authorisation added; a token request waits at most `timeoutMs`. */
export async function authorize(
  request: BuiltRequest,
  auth: ResolvedAuth | undefined,
  ctx: AuthContext,
  timeoutMs: number = TOKEN_TIMEOUT_MS,
): Promise<BuiltRequest> {
  if (!auth) return request;
  switch (auth.type) {
    case 'header':
      return withHeaders(request, { [auth.name]: auth.value });
    case 'aws-sigv4':
      return signSigV4(request, auth);
    case 'google-service-account':
      return withHeaders(request, { authorization: `Bearer ${await googleToken(auth.key, auth.mode, ctx, timeoutMs)}` });
  }
}

function withHeaders(request: BuiltRequest, extra: Record<string, string>): BuiltRequest {
  return { url: request.url, init: { ...request.init, headers: { ...(request.init.headers as Record<string, string>), ...extra } } };
}

/** SigV4 for Bedrock (service `bedrock`), in the configured region or the one in the endpoint's host. */
async function signSigV4(request: BuiltRequest, auth: Extract<ResolvedAuth, { type: 'aws-sigv4' }>): Promise<BuiltRequest> {
  const region = auth.region ?? regionOfHost(request.url)?.value;
  if (!region) throw new AuthError(`no AWS region: give auth.region, or an endpoint like bedrock-runtime.<region>.amazonaws.com`);
  // Accept-Encoding stays unsigned (SigV4 allows unsigned headers): proxies and Cloudflare's edge rewrite it on the way.
  const { 'accept-encoding': acceptEncoding, ...signable } = request.init.headers as Record<string, string>;
  const signer = new AwsV4Signer({
    url: request.url,
    method: request.init.method ?? 'POST',
    headers: signable,
    body: request.init.body as string,
    accessKeyId: auth.accessKeyId,
    secretAccessKey: auth.secretAccessKey,
    sessionToken: auth.sessionToken,
    service: 'bedrock',
    region,
  });
  const signed = await signer.sign();
  const headers = Object.fromEntries(signed.headers);
  if (acceptEncoding !== undefined) headers['accept-encoding'] = acceptEncoding;
  return { url: signed.url.toString(), init: { ...request.init, headers } };
}

/**
 * A Google access token for the service account: from the cache, else a JWT signed with its key and
 * exchanged at its token URI (`token-exchange`), or the signed JWT itself used as the token
 * (`self-signed`, which Google APIs accept with a scope claim and which needs no request). The
 * exchange, answer and body, takes at most `timeoutMs`, and at most TOKEN_BODY_LIMIT of its body is read.
 */
export async function googleToken(
  key: ServiceAccountKey,
  mode: 'token-exchange' | 'self-signed',
  ctx: AuthContext,
  timeoutMs: number = TOKEN_TIMEOUT_MS,
): Promise<string> {
  const now = (ctx.now ?? Date.now)();
  const cacheKey = `${mode}|${key.client_email}|${key.private_key_id ?? ''}`;
  const cached = ctx.tokens.get(cacheKey, now);
  if (cached) return cached;
  const issuedAt = Math.floor(now / 1000);
  const tokenUri = key.token_uri ?? GOOGLE_TOKEN_URI;
  let privateKey: Awaited<ReturnType<typeof importPKCS8>>;
  try {
    privateKey = await importPKCS8(key.private_key, 'RS256');
  } catch (e) {
    throw new AuthError(`the service account's private_key is not a PKCS #8 RSA key (${e instanceof Error ? e.message : String(e)})`);
  }
  const jwt = await new SignJWT({ scope: CLOUD_PLATFORM_SCOPE })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(key.private_key_id ? { kid: key.private_key_id } : {}) })
    .setIssuer(key.client_email)
    .setSubject(key.client_email)
    .setAudience(mode === 'self-signed' ? 'https://aiplatform.googleapis.com/' : tokenUri)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + TOKEN_LIFETIME_S)
    .sign(privateKey);
  if (mode === 'self-signed') {
    ctx.tokens.put(cacheKey, jwt, (issuedAt + TOKEN_LIFETIME_S) * 1000);
    return jwt;
  }
  ctx.tokens.fetches++;
  const { status, ok, text, atCap } = await exchange(ctx, tokenUri, jwt, timeoutMs);
  let body: { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown } = {};
  try {
    body = JSON.parse(text);
  } catch {
    // described below
  }
  if (!ok || typeof body.access_token !== 'string' || body.access_token === '') {
    const why =
      typeof body.error === 'string'
        ? `${body.error}${typeof body.error_description === 'string' ? `: ${body.error_description}` : ''}`
        : `no access_token${atCap ? ` in its first ${TOKEN_BODY_LIMIT} bytes (read no further)` : ''}`;
    throw new AuthError(`token request to ${new URL(tokenUri).host} answered ${status}: ${why}`, status);
  }
  const lifetime = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : TOKEN_LIFETIME_S;
  ctx.tokens.put(cacheKey, body.access_token, now + lifetime * 1000);
  return body.access_token;
}

/**
 * The token request and its answer, read to at most TOKEN_BODY_LIMIT, all within `timeoutMs`: the
 * request is aborted at the deadline, and the wait ends then even for a fetch that ignores the abort.
 */
async function exchange(
  ctx: AuthContext,
  tokenUri: string,
  jwt: string,
  timeoutMs: number,
): Promise<{ status: number; ok: boolean; text: string; atCap: boolean }> {
  const fetchFn = ctx.fetch ?? ((input: string, init?: RequestInit) => fetch(input, init));
  const host = new URL(tokenUri).host;
  const controller = new AbortController();
  let answered = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Settled before the abort, so the abort's own rejection of the request never wins the race.
      reject(
        new AuthError(
          answered
            ? `token request to ${host}: its answer did not end within ${timeoutMs} ms`
            : `token request to ${host}: no answer within ${timeoutMs} ms`,
          null,
          'timeout_headers',
        ),
      );
      controller.abort();
    }, timeoutMs);
  });
  const work = async () => {
    let response: Response;
    try {
      response = await fetchFn(tokenUri, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: jwt }).toString(),
        signal: controller.signal,
        // The assertion is a credential: never sent on to a URL that was not configured.
        redirect: 'manual',
      });
    } catch (e) {
      throw new AuthError(`token request to ${host} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    answered = true;
    const { text, atCap } = await readBounded(response, TOKEN_BODY_LIMIT);
    return { status: response.status, ok: response.ok, text, atCap };
  };
  try {
    return await Promise.race([work(), deadline]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

/** A service-account key file's JSON, checked for what the probe needs. */
export function parseServiceAccount(json: string): ServiceAccountKey {
  let key: Partial<ServiceAccountKey>;
  try {
    key = JSON.parse(json);
  } catch {
    throw new AuthError('the service-account secret is not JSON (paste the whole key file)');
  }
  if (typeof key.client_email !== 'string' || typeof key.private_key !== 'string')
    throw new AuthError('the service-account key has no client_email or private_key');
  return {
    client_email: key.client_email,
    private_key: key.private_key,
    private_key_id: typeof key.private_key_id === 'string' ? key.private_key_id : undefined,
    token_uri: typeof key.token_uri === 'string' ? key.token_uri : undefined,
  };
}

/** Every secret value in an authorisation, for redaction. */
export function authSecrets(auth: ResolvedAuth | undefined): string[] {
  if (!auth) return [];
  switch (auth.type) {
    case 'header':
      return [auth.value];
    case 'aws-sigv4':
      return [auth.secretAccessKey, auth.accessKeyId, ...(auth.sessionToken ? [auth.sessionToken] : [])];
    case 'google-service-account':
      return [auth.key.private_key];
  }
}
