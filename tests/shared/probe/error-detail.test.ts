/** What error_detail and logs may hold: every secret removed before any cut, also as a prefix. */
import { describe, expect, it } from 'vitest';
import { httpErrorDetail, redact, safeDetail, SECRET_PREFIX_CHARS } from '../../../shared/probe/error-detail.ts';

describe('redaction', () => {
  it('removes a configured secret whole, or any part of it from its first 8 characters on', () => {
    const secret = 'Zq9vT2mXw4LpR7sK1nB';
    expect(redact(`token ${secret} end`, [secret])).toBe('token [redacted] end');
    expect(redact(`cut ${secret.slice(0, SECRET_PREFIX_CHARS)}`, [secret])).toBe('cut [redacted]');
    expect(redact(`cut ${secret.slice(0, 12)}xyz`, [secret])).toBe('cut [redacted]xyz');
    // Fewer than 8 characters of it could be anything: left alone.
    expect(redact(`maybe ${secret.slice(0, 7)}`, [secret])).toBe(`maybe ${secret.slice(0, 7)}`);
    expect(redact(`twice ${secret} and ${secret.slice(0, 9)}`, [secret])).toBe('twice [redacted] and [redacted]');
  });

  it('removes vendor key shapes, credentials in headers and in query strings', () => {
    const cases = [
      'sk-proj-abcdefghijklmnop',
      'sk-ant-api03-abcdefghijkl',
      'gsk_abcdefghijklmnop',
      'hf_abcdefghijklmnop',
      'fw_abcdefghijklmnop',
      'r8_abcdefghijklmnop',
      'pplx-abcdefghijklmnop',
      'nvapi-abcdefghijklmnop',
      'xai-abcdefghijklmnop',
      'csk-abcdefghijklmnop',
      'AIzaSyAbcdefghijklmnopqrstuvw',
      'AKIAABCDEFGHIJKLMNOP',
      'ghp_abcdefghijklmnop',
      'whsec_abcdefghijklmnop',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.c2lnbmF0dXJl',
    ];
    for (const key of cases) expect(redact(`key ${key} here`), key).toBe('key [redacted] here');
    expect(redact('Authorization: Bearer abc.def-123')).toBe('Authorization: Bearer [redacted]');
    expect(redact('GET /v1/x?key=abc123&other=1')).toBe('GET /v1/x?key=[redacted]&other=1');
  });

  it('redacts before it cuts: a key across the cut leaves no prefix', () => {
    const secret = 'S3cr3tValueThatIsLong9876';
    const body = `${'x'.repeat(180) + secret} tail`;
    const detail = safeDetail(httpErrorDetail(500, body, null), [secret]);
    expect(detail.length).toBeLessThanOrEqual(200);
    expect(detail).not.toContain(secret.slice(0, SECRET_PREFIX_CHARS));
    // A vendor key shape too (a plain-text body is no longer cut before redaction).
    const vendor = safeDetail(httpErrorDetail(401, `${'y'.repeat(110)} gsk_abcdefghijklmnopqrstuvwxyz`, null));
    expect(vendor).not.toMatch(/gsk_/);
  });
});
