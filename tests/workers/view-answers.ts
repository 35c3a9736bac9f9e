/**
 * What every answer of a public view must be (views/serve-view.ts), for the view tests: served from a view with no
 * D1 row read and no Durable Object called, cacheable (Cache-Control, Age, Last-Modified), with an ETag that a HEAD
 * repeats and that If-None-Match turns into a 304, GET and HEAD alike.
 */
import { expect } from 'vitest';
import { SELF } from 'cloudflare:test';
import { env } from 'cloudflare:workers';

export const get = (path: string, init: RequestInit = {}) => SELF.fetch(`https://observatory.test${path}`, init);
/** The live answer: a token holder's request is never answered from the views. */
export const live = (path: string) => get(path, { headers: { authorization: `Bearer ${env.READ_TOKEN}`, 'cache-control': 'no-cache' } });

/** Builds every part now (the admin route); returns what each part's build read and wrote. */
export async function buildViews(): Promise<Record<string, { views: number; bytes: number; rows_read: number }>> {
  const r = await get('/api/v1/views', { method: 'POST', headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` } });
  expect(r.status, await r.clone().text()).toBe(200);
  return (await r.json<{ parts: Record<string, { views: number; bytes: number; rows_read: number }> }>()).parts;
}

/** An anonymous answer that a view gave (reading no D1 row), as JSON. */
export async function fromView<T = Record<string, unknown>>(path: string): Promise<T> {
  const r = await get(path);
  expect(r.status, path).toBe(200);
  expect(r.headers.get('x-view') ?? 'live', path).not.toMatch(/^(live|missing)$/);
  expect(r.headers.get('x-d1-rows-read'), path).toBe('0');
  return r.json<T>();
}

/** Checks one path's anonymous GET and HEAD as a view's answers; returns the GET's view name. */
export async function expectViewAnswer(path: string): Promise<string> {
  const r = await get(path);
  expect(r.status, `${path}: ${await r.clone().text()}`).toBe(200);
  const view = r.headers.get('x-view');
  expect(view, path).toBeTruthy();
  expect(view, path).not.toBe('missing');
  expect(r.headers.get('x-d1-rows-read'), path).toBe('0');
  expect(r.headers.get('x-do-requests'), path).toBe('0');
  expect(r.headers.get('cache-control'), path).toMatch(/^public, max-age=\d+, stale-while-revalidate=\d+$/);
  expect(Number(r.headers.get('age')), path).toBeGreaterThanOrEqual(0);
  expect(Date.parse(r.headers.get('last-modified')!), path).toBeGreaterThan(0);
  const etag = r.headers.get('etag')!;
  expect(etag, path).toMatch(/^"[0-9a-f-]+"$/);
  await r.json();
  const head = await get(path, { method: 'HEAD' });
  expect(head.status, path).toBe(200);
  expect(head.headers.get('etag'), path).toBe(etag);
  expect(head.headers.get('x-d1-rows-read'), path).toBe('0');
  expect(await head.text()).toBe('');
  for (const method of ['GET', 'HEAD']) {
    const again = await get(path, { method, headers: { 'if-none-match': etag } });
    expect(again.status, `${method} ${path} with If-None-Match`).toBe(304);
    expect(again.headers.get('x-d1-rows-read')).toBe('0');
  }
  return view!;
}
