/** The admin bearer token, compared in constant time (hashes of equal length, then timingSafeEqual). */
import { ApiError } from './errors.ts';

async function digest(text: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
}

export async function requireAdmin(request: Request, token: string | undefined): Promise<void> {
  if (!token) throw new ApiError(403, 'admin_disabled', 'admin routes are disabled: set the ADMIN_TOKEN secret');
  const given = request.headers.get('authorization')?.match(/^Bearer\s+(.+)$/i)?.[1] ?? '';
  const [a, b] = await Promise.all([digest(given), digest(token)]);
  if (!crypto.subtle.timingSafeEqual(a, b)) throw new ApiError(401, 'unauthorized', 'a valid "Authorization: Bearer <ADMIN_TOKEN>" header is required');
}
