/** Optional bearer token for a deployed endpoint, compared in constant time. */
export async function tokenMatches(expected: string | undefined, request: Request): Promise<boolean> {
  if (!expected) return true;
  const h = request.headers;
  const bearer = h.get('authorization')?.replace(/^Bearer\s+/i, '');
  const given = bearer ?? h.get('x-api-key') ?? h.get('x-goog-api-key') ?? new URL(request.url).searchParams.get('key') ?? '';
  const [a, b] = await Promise.all([digest(given), digest(expected)]);
  return crypto.subtle.timingSafeEqual(a, b);
}

async function digest(text: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
}
