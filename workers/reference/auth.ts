/** Optional bearer token for a deployed endpoint, compared in constant time. */
import { sameSecret } from '../common/same-secret.ts';

export async function tokenMatches(expected: string | undefined, request: Request): Promise<boolean> {
  if (!expected) return true;
  const h = request.headers;
  const bearer = h.get('authorization')?.replace(/^Bearer\s+/i, '');
  const given = bearer ?? h.get('x-api-key') ?? h.get('x-goog-api-key') ?? new URL(request.url).searchParams.get('key') ?? '';
  return sameSecret(given, expected);
}
