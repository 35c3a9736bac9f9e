/**
 * A service account's token request is hostile input too (shared/probe/auth.ts): an endpoint that
 * never answers, or whose answer never ends, gives one classified sample within the probe's own bound;
 * its body is read to its cap and no further; and a secret it echoes is removed before its text is cut.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { exportPKCS8, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProbe } from '../../../shared/probe/probe.ts';
import { AccessTokenCache, parseServiceAccount, TOKEN_BODY_LIMIT, type ServiceAccountKey } from '../../../shared/probe/auth.ts';
import { ERROR_DETAIL_MAX_CHARS } from '../../../shared/constants.ts';
import type { ProbeTarget, Timeouts } from '../../../shared/types.ts';

/** Tight bounds, so a stall shows in well under a second; the token wait is the least of them (tokenTimeoutMs). */
const TIMEOUTS: Timeouts = { headersMs: 400, firstTokenMs: 1_000, idleMs: 1_000, totalMs: 1_500 };

/** What the token endpoint does: `stall` never answers, `stall-body` sends its headers and then nothing, `refuse` answers 400 with `body`. */
let behaviour: { kind: 'stall' } | { kind: 'stall-body' } | { kind: 'refuse'; body: unknown } = { kind: 'stall' };
let server: Server;
const sockets = new Set<Socket>();
let privateKey = '';

const keyFor = (tokenUri: string): ServiceAccountKey =>
  parseServiceAccount(
    JSON.stringify({ client_email: 'probe@observatory-test.iam.gserviceaccount.com', private_key: privateKey, token_uri: tokenUri }),
  );

const vertex = (tokenUri: string): ProbeTarget => ({
  id: 'vertex',
  api: 'gemini',
  url: 'https://europe-west4-aiplatform.googleapis.com/v1/projects/p/locations/europe-west4/publishers/google/models/g:streamGenerateContent?alt=sse',
  model: 'g',
  auth: { type: 'google-service-account', key: keyFor(tokenUri), mode: 'token-exchange' },
});

/** The vendor itself is never reached when the token fails: a call to it fails the test. */
const noVendor = async (): Promise<Response> => {
  throw new Error('the vendor was called without a token');
};

let tokenUri = '';

beforeAll(async () => {
  const pair = await generateKeyPair('RS256', { extractable: true });
  privateKey = await exportPKCS8(pair.privateKey);
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const now = behaviour;
      if (now.kind === 'stall') return; // never answers
      if (now.kind === 'stall-body') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"access_token":'); // and nothing more, ever
        return;
      }
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(now.body));
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  tokenUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('a token endpoint that stalls', () => {
  for (const kind of ['stall', 'stall-body'] as const) {
    it(`(${kind === 'stall' ? 'no answer' : 'an answer that never ends'}) gives one timeout_headers sample within the probe's total bound`, async () => {
      behaviour = { kind };
      const started = performance.now();
      const { sample } = await runProbe({
        target: vertex(tokenUri),
        prompt: { id: 'p', promptTokens: 16, maxTokens: 8 },
        timeouts: TIMEOUTS,
        fetch: noVendor,
        authContext: { tokens: new AccessTokenCache() },
      });
      const took = performance.now() - started;
      expect(sample).toMatchObject({ error: 'timeout_headers', status: null, ttft_ms: null, headers_ms: null });
      expect(sample.error_detail).toMatch(
        kind === 'stall'
          ? /^authorisation failed: token request to 127\.0\.0\.1:\d+: no answer within 400 ms$/
          : /^authorisation failed: token request to 127\.0\.0\.1:\d+: its answer did not end within 400 ms$/,
      );
      // Held for the token bound (the least of the bounds), never past the probe's total.
      expect(took).toBeGreaterThanOrEqual(TIMEOUTS.headersMs - 5);
      expect(took).toBeLessThan(TIMEOUTS.totalMs);
    });
  }
});

describe('a token answer', () => {
  it('is read to its cap and no further', async () => {
    const CHUNK = 16 * 1024;
    const BODY = 4 * 1024 * 1024;
    let pulled = 0;
    // Pulled only as it is read (no chunk queued ahead): `pulled` is what the probe read.
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (pulled >= BODY) return controller.close();
          pulled += CHUNK;
          controller.enqueue(new Uint8Array(CHUNK).fill(0x20));
        },
      },
      { highWaterMark: 0 },
    );
    const { sample } = await runProbe({
      target: vertex('https://oauth2.example/token'),
      prompt: { id: 'p', promptTokens: 16, maxTokens: 8 },
      timeouts: TIMEOUTS,
      fetch: noVendor,
      authContext: {
        tokens: new AccessTokenCache(),
        fetch: async () => new Response(body, { status: 200, headers: { 'content-type': 'application/json' } }),
      },
    });
    expect(pulled).toBeLessThanOrEqual(TOKEN_BODY_LIMIT);
    expect(sample).toMatchObject({ error: 'http', status: 200 });
    expect(sample.error_detail).toContain(`no access_token in its first ${TOKEN_BODY_LIMIT} bytes`);
  });

  it('that echoes a secret across the cut leaves no part of it in the sample', async () => {
    // A long secret first, redacted to a short mark: cut before redaction, the text after it would show
    // the next copy's first characters, too few to be recognised as the secret once cut off.
    const secret = `Zk3q9${'v'.repeat(115)}`;
    const shown = 5;
    const why = 'invalid_grant: ';
    const cutAt = 200;
    const padding = '.'.repeat(cutAt - why.length - secret.length - shown);
    behaviour = { kind: 'refuse', body: { error: 'invalid_grant', error_description: `${secret}${padding}${secret}` } };
    const { sample } = await runProbe({
      target: vertex(tokenUri),
      prompt: { id: 'p', promptTokens: 16, maxTokens: 8 },
      timeouts: TIMEOUTS,
      fetch: noVendor,
      authContext: { tokens: new AccessTokenCache() },
      redact: [secret],
    });
    expect(sample).toMatchObject({ error: 'http', status: 400 });
    expect(sample.error_detail!.length).toBeLessThanOrEqual(ERROR_DETAIL_MAX_CHARS);
    expect(sample.error_detail).toContain('invalid_grant: [redacted]...');
    expect(sample.error_detail).not.toContain(secret.slice(0, shown));
  });
});
