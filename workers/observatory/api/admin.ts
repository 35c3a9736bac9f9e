/** The admin bearer token, compared in constant time. */
import { sameSecret } from '../../common/same-secret.ts';
import { ApiError } from './errors.ts';

/** The token of an `Authorization: Bearer …` header, or '' when there is none. */
export function bearerToken(request: Request): string {
  return request.headers.get('authorization')?.match(/^Bearer\s+(.+)$/i)?.[1] ?? '';
}

export async function requireAdmin(request: Request, token: string | undefined): Promise<void> {
  if (!token) throw new ApiError(403, 'admin_disabled', 'admin routes are disabled: set the ADMIN_TOKEN secret');
  const given = bearerToken(request);
  if (!(await sameSecret(given, token)))
    throw new ApiError(401, 'unauthorized', 'a valid "Authorization: Bearer <ADMIN_TOKEN>" header is required');
}
