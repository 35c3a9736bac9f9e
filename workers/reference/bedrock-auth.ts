/**
 * Bedrock's two ways in, as AWS clients use them:
 * - `Authorization: Bearer <Bedrock API key>`: the reference's REFERENCE_TOKEN, as on every route;
 * - SigV4 (`Authorization: AWS4-HMAC-SHA256 …`): verified (sigv4.ts) against the test credentials
 *   REFERENCE_AWS_ACCESS_KEY_ID / REFERENCE_AWS_SECRET_ACCESS_KEY when they are configured; a bad
 *   signature is AWS's 403 InvalidSignatureException. Those credentials are public test values
 *   (wrangler.toml), so a good signature is no key: it is enough where anyone may come in (no
 *   REFERENCE_TOKEN), and a token-locked endpoint still wants its Bearer key.
 * Without a REFERENCE_TOKEN, a request without credentials (or with SigV4 nothing can check) is
 * served, as on the other routes. Refusals are 403s with AWS's messages and error types.
 */
import { BEARER_ONLY, presentedKey, tokenMatches, type Authenticate, type AuthFailure } from './auth.ts';
import { isSigV4, verifySigV4, type AwsCredentials } from './sigv4.ts';

/** The service name in a Bedrock Runtime credential scope. */
export const BEDROCK_SIGNING_SERVICE = 'bedrock';

const refuse = (type: string, message: string): AuthFailure => ({ status: 403, message, headers: { 'x-amzn-errortype': type } });

export function awsCredentialsFrom(env: Env): AwsCredentials | null {
  const accessKeyId = env.REFERENCE_AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.REFERENCE_AWS_SECRET_ACCESS_KEY;
  return accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : null;
}

export function bedrockAuth(credentials: AwsCredentials | null): Authenticate {
  return async (request, access, body) => {
    if (isSigV4(request.headers.get('authorization'))) {
      if (credentials) {
        const failure = await verifySigV4(request, await body(), credentials, BEDROCK_SIGNING_SERVICE);
        if (failure) return { status: failure.status, message: failure.message, headers: { 'x-amzn-errortype': failure.type } };
      }
      if (!access.token) return null;
      return refuse(
        'AccessDeniedException',
        'This reference endpoint takes SigV4 only with its public test credentials, which open no token-locked endpoint: send its Bedrock API key (Authorization: Bearer <key>).',
      );
    }
    if (!access.token) return null;
    if (presentedKey(request, BEARER_ONLY) === null) return refuse('MissingAuthenticationTokenException', 'Missing Authentication Token');
    if (await tokenMatches(access.token, request, BEARER_ONLY)) return null;
    return refuse('AccessDeniedException', 'Authentication failed: Please make sure your API Key is valid.');
  };
}
