/**
 * Authorisation before t0 (shared/probe/auth.ts): SigV4 as AWS's published test suite signs it, a
 * service account's token fetched from a real token endpoint on loopback, verified there and cached
 * until shortly before it expires, a key in a header of its own, and failures that say what failed
 * without a secret in them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportPKCS8, exportSPKI, generateKeyPair, importSPKI, jwtVerify } from 'jose';
import { AwsV4Signer } from 'aws4fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProbe } from '../../../shared/probe/probe.ts';
import {
  AccessTokenCache,
  authorize,
  CLOUD_PLATFORM_SCOPE,
  googleToken,
  parseServiceAccount,
  TOKEN_RENEW_BEFORE_MS,
  type ServiceAccountKey,
} from '../../../shared/probe/auth.ts';
import type { ProbeTarget } from '../../../shared/types.ts';

describe('SigV4', () => {
  it("signs AWS's published get-vanilla request exactly (aws4fetch, the signer the probe uses)", async () => {
    const signed = await new AwsV4Signer({
      url: 'https://example.amazonaws.com/',
      method: 'GET',
      headers: {},
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
      service: 'service',
      region: 'us-east-1',
      datetime: '20150830T123600Z',
    }).sign();
    expect(signed.headers.get('authorization')).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    );
  });

  it('signs a Bedrock request for service bedrock in the region of its host, with the session token, over the exact body', async () => {
    const body = JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'hi' }] }] });
    const request = {
      url: 'https://bedrock-runtime.eu-west-3.amazonaws.com/model/m/converse-stream',
      init: { method: 'POST', headers: { 'content-type': 'application/json', 'accept-encoding': 'identity' }, body },
    };
    const out = await authorize(
      request,
      {
        type: 'aws-sigv4',
        region: null,
        accessKeyId: 'AKIDEXAMPLE',
        secretAccessKey: 'secret-key-0123456789',
        sessionToken: 'session-token',
      },
      { tokens: new AccessTokenCache() },
    );
    const headers = out.init.headers as Record<string, string>;
    expect(headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-3\/bedrock\/aws4_request, SignedHeaders=host;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/,
    );
    expect(headers['x-amz-security-token']).toBe('session-token');
    // Sent, but not signed: the edge and proxies rewrite Accept-Encoding on the way (SigV4 allows unsigned headers).
    expect(headers['accept-encoding']).toBe('identity');
    expect(out.init.body).toBe(body);
    // The same request signed again at the same time with another body gets another signature: the body is signed.
    const again = await new AwsV4Signer({
      url: request.url,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `${body} `,
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'secret-key-0123456789',
      sessionToken: 'session-token',
      service: 'bedrock',
      region: 'eu-west-3',
      datetime: headers['x-amz-date'],
    }).sign();
    expect(again.headers.get('authorization')).not.toBe(headers.authorization);
  });

  it('refuses to guess a region it is not given and the host does not name', async () => {
    await expect(
      authorize(
        { url: 'https://bedrock.example/model/m/converse-stream', init: { method: 'POST', body: '{}' } },
        { type: 'aws-sigv4', region: null, accessKeyId: 'a', secretAccessKey: 'b' },
        { tokens: new AccessTokenCache() },
      ),
    ).rejects.toThrow(/no AWS region/);
  });
});

describe('a service account', () => {
  let server: Server;
  let tokenUri = '';
  let key: ServiceAccountKey;
  let publicKey: string;
  const received: Array<{ assertion: string; grant: string | null }> = [];
  let answer: (n: number) => { status: number; body: unknown } = (n) => ({
    status: 200,
    body: { access_token: `token-${n}`, expires_in: 3600, token_type: 'Bearer' },
  });

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256', { extractable: true });
    publicKey = await exportSPKI(pair.publicKey);
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (c) => (text += c));
      req.on('end', () => {
        const form = new URLSearchParams(text);
        received.push({ assertion: form.get('assertion') ?? '', grant: form.get('grant_type') });
        const { status, body } = answer(received.length);
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    tokenUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
    key = parseServiceAccount(
      JSON.stringify({
        type: 'service_account',
        client_email: 'probe@observatory-test.iam.gserviceaccount.com',
        private_key_id: 'kid-1',
        private_key: await exportPKCS8(pair.privateKey),
        token_uri: tokenUri,
      }),
    );
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('exchanges a JWT signed with its key (RS256, checked with the public key) for a token, once until it is about to expire', async () => {
    received.length = 0;
    const tokens = new AccessTokenCache();
    let now = Date.UTC(2026, 11, 1, 12);
    const ctx = { tokens, now: () => now };
    expect(await googleToken(key, 'token-exchange', ctx)).toBe('token-1');
    const { payload, protectedHeader } = await jwtVerify(received[0].assertion, await importSPKI(publicKey, 'RS256'), {
      issuer: key.client_email,
      audience: tokenUri,
      currentDate: new Date(now),
    });
    expect(protectedHeader).toMatchObject({ alg: 'RS256', kid: 'kid-1' });
    expect(payload).toMatchObject({ scope: CLOUD_PLATFORM_SCOPE, sub: key.client_email });
    expect(payload.exp! - payload.iat!).toBe(3600);
    expect(received[0].grant).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    // Cached while more than the renewal margin is left …
    now += 3_600_000 - TOKEN_RENEW_BEFORE_MS - 1_000;
    expect(await googleToken(key, 'token-exchange', ctx)).toBe('token-1');
    expect(tokens.fetches).toBe(1);
    // … and renewed inside it.
    now += 2_000;
    expect(await googleToken(key, 'token-exchange', ctx)).toBe('token-2');
    expect(tokens.fetches).toBe(2);
  });

  it('signs a self-signed token with no request at all, also cached', async () => {
    received.length = 0;
    const tokens = new AccessTokenCache();
    const token = await googleToken(key, 'self-signed', { tokens });
    expect(await googleToken(key, 'self-signed', { tokens })).toBe(token);
    const { payload } = await jwtVerify(token, await importSPKI(publicKey, 'RS256'), { audience: 'https://aiplatform.googleapis.com/' });
    expect(payload.iss).toBe(key.client_email);
    expect(received).toHaveLength(0);
    expect(tokens.fetches).toBe(0);
  });

  it('probes with the token, fetched before t0 (untimed), and a refused token is one failed sample naming the status, no secret in it', async () => {
    received.length = 0;
    const sent: Array<Record<string, string>> = [];
    const target: ProbeTarget = {
      id: 'vertex',
      api: 'gemini',
      url: 'https://europe-west4-aiplatform.googleapis.com/v1/projects/p/locations/europe-west4/publishers/google/models/g:streamGenerateContent?alt=sse',
      model: 'g',
      auth: { type: 'google-service-account', key, mode: 'token-exchange' },
    };
    const fetchVendor = async (_url: string, init?: RequestInit) => {
      sent.push(init!.headers as Record<string, string>);
      return new Response(
        'data: {"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":1}}\r\n\r\n',
        { headers: { 'content-type': 'text/event-stream' } },
      );
    };
    let clock = 0;
    const authContext = {
      tokens: new AccessTokenCache(),
      fetch: async (input: string, init?: RequestInit) => {
        clock += 5_000; // a slow token endpoint: none of it may show in the sample's figures
        return fetch(input, init);
      },
    };
    const { sample } = await runProbe({
      target,
      prompt: { id: 'p', promptTokens: 16, maxTokens: 8 },
      fetch: fetchVendor,
      now: () => clock,
      authContext,
    });
    expect(sample.error).toBeNull();
    expect(sent[0].authorization).toBe('Bearer token-1');
    expect(sample.ttft_ms).toBeLessThan(1_000);
    expect(sample.served_by).toBe('europe-west4');

    answer = () => ({ status: 400, body: { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' } });
    const refused = await runProbe({
      target,
      prompt: { id: 'p', promptTokens: 16, maxTokens: 8 },
      fetch: fetchVendor,
      authContext: { tokens: new AccessTokenCache() },
    });
    expect(refused.sample).toMatchObject({ error: 'http', status: 400, ttft_ms: null });
    expect(refused.sample.error_detail).toContain('invalid_grant: Invalid JWT Signature.');
    expect(refused.sample.error_detail).not.toContain('PRIVATE KEY');
    expect(sent).toHaveLength(1);
  });

  it('says plainly when the secret is not a key file', () => {
    expect(() => parseServiceAccount('not json')).toThrow(/not JSON/);
    expect(() => parseServiceAccount('{"client_email":"a@b"}')).toThrow(/no client_email or private_key/);
  });
});

describe('a key in a header of its own (Azure api-key)', () => {
  it('is sent in that header and in no Authorization header', async () => {
    const sent: Array<Record<string, string>> = [];
    await runProbe({
      target: {
        id: 'azure',
        api: 'openai-chat',
        url: 'https://example.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21',
        model: 'gpt-4o-mini',
        auth: { type: 'header', name: 'api-key', value: 'azure-key-0123456789' },
      },
      prompt: { id: 'p', promptTokens: 16, maxTokens: 8 },
      fetch: async (_url, init) => {
        sent.push(init!.headers as Record<string, string>);
        return new Response('data: [DONE]\n\n', { headers: { 'content-type': 'text/event-stream' } });
      },
    });
    expect(sent[0]['api-key']).toBe('azure-key-0123456789');
    expect(sent[0].authorization).toBeUndefined();
  });
});
