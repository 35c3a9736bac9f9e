/**
 * Every query of the public routes that the public views answer (workers/observatory/views/), each window and
 * with and without filters, for the configuration `regions`, `targets` and `variant` name: what the Workers tests
 * and the `npm run dev` test ask anonymously, expecting no D1 row read and a cacheable answer.
 */
import { expect } from 'vitest';
import { VIEW_WINDOWS } from '../../shared/views/windows.ts';

export function viewQueries(regions: readonly string[], targets: readonly string[], variant: string): string[] {
  const [r1, r2] = regions;
  const [t1, t2] = targets;
  return [
    '/api/v1/status',
    '/api/v1/health',
    '/api/v1/regions',
    '/api/v1/targets?window=24h',
    '/api/v1/served-by',
    `/api/v1/served-by?region=${r1}&target=${t1}`,
    `/api/v1/fidelity?variant=${variant}`,
    '/api/v1/time-profiles',
    `/api/v1/time-profiles?region=${r1}&target=${t1}`,
    '/api/v1/percentiles',
    ...VIEW_WINDOWS.flatMap((w) => [
      `/api/v1/percentiles?window=${w.id}`,
      `/api/v1/percentiles?window=${w.id}&metric=server_ms`,
      `/api/v1/percentiles?window=${w.id}&region=${r1}`,
      `/api/v1/percentiles?window=${w.id}&target=${t1},${t2 ?? t1}&variant=${variant}&region=${r2 ?? r1}`,
      `/api/v1/percentiles?window=${w.id}&by=target`,
      `/api/v1/compare?window=${w.id}`,
      `/api/v1/compare?window=${w.id}&figure=total_chat&region=${r1}`,
      `/api/v1/compare?window=${w.id}&figure=total_batch&target=${t1},${t2 ?? t1}&variant=${variant}`,
    ]),
    '/api/v1/compare',
    '/api/v1/prompt-cache',
    '/api/v1/prompt-cache?window=24h',
    `/api/v1/prompt-cache?window=7d&region=${r1}&target=${t1}`,
    '/api/v1/changes',
    `/api/v1/changes?region=${r1}&target=${t1}&variant=${variant}`,
  ];
}

/**
 * Asks `path` anonymously as GET and HEAD, and again with its ETag: each answered from a view (`x-view`), with no
 * D1 row read and no Durable Object called, Cache-Control, Age, Last-Modified, an ETag, and a 304 when held.
 */
export async function expectFromView(get: (path: string, init?: RequestInit) => Promise<Response>, path: string): Promise<void> {
  const rowsRead = (r: Response) => r.headers.get('x-d1-rows-read');
  const r = await get(path);
  expect(r.status, `${path}: ${await r.clone().text()}`).toBe(200);
  expect(r.headers.get('x-view'), path).toBeTruthy();
  expect(r.headers.get('x-view'), path).not.toBe('missing');
  expect(rowsRead(r), path).toBe('0');
  expect(r.headers.get('x-do-requests'), path).toBe('0');
  expect(r.headers.get('cache-control'), path).toMatch(/^public, max-age=\d+, stale-while-revalidate=\d+$/);
  expect(Number(r.headers.get('age')), path).toBeGreaterThanOrEqual(0);
  expect(Date.parse(r.headers.get('last-modified')!), path).toBeGreaterThan(0);
  const etag = r.headers.get('etag')!;
  expect(etag, path).toMatch(/^"[0-9a-f-]+"$/);
  await r.text();
  const head = await get(path, { method: 'HEAD' });
  expect(head.status, path).toBe(200);
  expect(head.headers.get('etag'), path).toBe(etag);
  expect(rowsRead(head), path).toBe('0');
  expect(await head.text()).toBe('');
  for (const method of ['GET', 'HEAD']) {
    const again = await get(path, { method, headers: { 'if-none-match': etag } });
    expect(again.status, `${method} ${path} with If-None-Match`).toBe(304);
    expect(rowsRead(again)).toBe('0');
  }
}
