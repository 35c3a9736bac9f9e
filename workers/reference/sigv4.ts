/**
 * Checks an AWS Signature Version 4 request as AWS does: parses `Authorization: AWS4-HMAC-SHA256
 * Credential=AKID/date/region/service/aws4_request, SignedHeaders=…, Signature=…`, recomputes the
 * signature over the headers the client signed with its own x-amz-date (aws4fetch's AwsV4Signer)
 * and compares. Failures carry AWS's error types and messages.
 */
import { AwsV4Signer } from 'aws4fetch';
import { sameSecret } from '../common/same-secret.ts';
import { MINUTE_MS } from '../../shared/time.ts';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface SigV4Failure {
  status: number;
  /** AWS's error type, for x-amzn-errortype. */
  type: string;
  message: string;
}

export const SIGV4_ALGORITHM = 'AWS4-HMAC-SHA256';
/** How far a request's x-amz-date may be from the server's clock (AWS: 15 minutes). */
export const SIGV4_MAX_SKEW_MS = 15 * MINUTE_MS;
export const SIGNATURE_MISMATCH =
  'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.';
const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';

interface SigV4Authorization {
  accessKeyId: string;
  scope: { date: string; region: string; service: string };
  signedHeaders: string[];
  signature: string;
}

export const isSigV4 = (authorization: string | null): boolean => authorization?.startsWith(`${SIGV4_ALGORITHM} `) === true;

function parseAuthorization(header: string): SigV4Authorization | null {
  const fields = new Map<string, string>();
  for (const part of header.slice(SIGV4_ALGORITHM.length).split(',')) {
    const eq = part.indexOf('=');
    if (eq !== -1) fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  const credential = fields.get('Credential')?.split('/');
  const signedHeaders = fields.get('SignedHeaders');
  const signature = fields.get('Signature');
  if (credential?.length !== 5 || credential[4] !== 'aws4_request' || !signedHeaders || !signature) return null;
  const [accessKeyId, date, region, service] = credential;
  return { accessKeyId, scope: { date, region, service }, signedHeaders: signedHeaders.split(';'), signature };
}

/** `20240102T030405Z` as ms since the epoch, or NaN. */
function amzDateMs(amzDate: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) : NaN;
}

const amzDate = (ms: number) => new Date(ms).toISOString().replace(/[:-]|\.\d{3}/g, '');

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** null when `request` (with `body`) is signed with `credentials` for `service`; otherwise AWS's refusal. */
export async function verifySigV4(
  request: Request,
  body: Uint8Array,
  credentials: AwsCredentials,
  service: string,
  now: number = Date.now(),
): Promise<SigV4Failure | null> {
  const incomplete = (message: string): SigV4Failure => ({ status: 403, type: 'IncompleteSignatureException', message });
  const invalid = (message: string): SigV4Failure => ({ status: 403, type: 'InvalidSignatureException', message });
  const auth = parseAuthorization(request.headers.get('authorization') ?? '');
  if (!auth) return incomplete('Authorization header requires Credential, SignedHeaders and Signature parameters.');
  if (auth.accessKeyId !== credentials.accessKeyId)
    return { status: 403, type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  if (auth.scope.service !== service) return invalid(`Credential should be scoped to correct service: '${service}'.`);
  if (!auth.signedHeaders.includes('host')) return incomplete("'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.");
  const date = request.headers.get('x-amz-date');
  if (date === null || !auth.signedHeaders.includes('x-amz-date'))
    return incomplete("Authorization header requires existence of a signed 'X-Amz-Date' header.");
  const signedAt = amzDateMs(date);
  if (Number.isNaN(signedAt)) return incomplete(`X-Amz-Date must be in the ISO8601 basic format: ${date}`);
  if (signedAt < now - SIGV4_MAX_SKEW_MS)
    return invalid(`Signature expired: ${date} is now earlier than ${amzDate(now - SIGV4_MAX_SKEW_MS)} (${amzDate(now)} - 15 min.)`);
  if (signedAt > now + SIGV4_MAX_SKEW_MS)
    return invalid(
      `Signature not yet current: ${date} is still later than ${amzDate(now + SIGV4_MAX_SKEW_MS)} (${amzDate(now)} + 15 min.)`,
    );
  const claimedHash = request.headers.get('x-amz-content-sha256');
  if (claimedHash !== null && claimedHash !== UNSIGNED_PAYLOAD && claimedHash !== (await sha256Hex(body)))
    return invalid("The provided 'x-amz-content-sha256' header does not match what was computed.");

  // Exactly the headers the client signed (aws4fetch adds host from the URL and x-amz-date from datetime).
  const url = new URL(request.url);
  url.host = request.headers.get('host') ?? url.host;
  const headers = new Headers();
  for (const name of auth.signedHeaders) if (name !== 'host') headers.set(name, request.headers.get(name) ?? '');
  const signer = new AwsV4Signer({
    method: request.method,
    url: url.toString(),
    headers,
    body,
    accessKeyId: credentials.accessKeyId,
    secretAccessKey: credentials.secretAccessKey,
    service,
    region: auth.scope.region,
    datetime: date,
    allHeaders: true,
  });
  if (signer.signedHeaders !== auth.signedHeaders.join(';')) return invalid(SIGNATURE_MISMATCH);
  return (await sameSecret(await signer.signature(), auth.signature)) ? null : invalid(SIGNATURE_MISMATCH);
}
