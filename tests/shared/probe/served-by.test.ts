/**
 * Where the vendor answered (`served_by`, `served_by_source`): read from real recordings (a router's
 * provider in the body, a vendor's region header, a CDN PoP, the cf-ray colo), from a cloud endpoint's
 * host, in the documented order of preference, and never from hostile bytes.
 */
import { describe, expect, it } from 'vitest';
import { runProbe } from '../../../shared/probe/probe.ts';
import { regionOfHost, servedBy, servedValue } from '../../../shared/probe/served-by.ts';
import { apiIdOf, loadFixture, replayFetch, splitBody, steppingClock, type Fixture } from '../../helpers/fixtures.ts';

async function probe(f: Fixture, options: { url?: string; fastPath?: boolean; readSize?: number } = {}) {
  const clock = steppingClock();
  const { sample } = await runProbe({
    target: { id: 'fixture', api: apiIdOf(f), url: options.url ?? 'http://127.0.0.1:9/', model: 'm' },
    prompt: { id: 'p', promptTokens: 64, maxTokens: 32 },
    fetch: replayFetch(f, splitBody(f.response.body, options.readSize ?? 97), clock, 10_000),
    now: clock,
    fastPath: options.fastPath,
  });
  return sample;
}

describe('served_by from real recordings', () => {
  const cases: Array<[string, string | null, string | null]> = [
    // OpenRouter names the provider it routed to in every chunk.
    ['openrouter-chat-completions-reasoning-processing-comments.json', 'Google', 'body.provider'],
    // Groq says its region in a header (the cf-ray colo, MXP, is only its edge).
    ['groq-chat-completions-text-x-groq-usage.json', 'me-central-1', 'x-groq-region'],
    // Through the Hugging Face router: its CloudFront PoP answered (the upstream's cf-ray comes after).
    ['cerebras-chat-completions-time-info-no-done.json', 'CDG55-P3', 'x-amz-cf-pop'],
    // Behind Cloudflare only: the colo of the cf-ray suffix.
    ['anthropic-messages-text-ping.json', 'SJC', 'cf-ray'],
    // Headers scrubbed by the recording's source: nothing says where, so nothing is claimed.
    ['together-chat-completions-text.json', null, null],
  ];
  for (const [name, value, source] of cases)
    it(`${name}: ${value ?? 'null'} from ${source ?? 'nothing'}, on the fast path and the full parse alike`, async () => {
      const f = loadFixture(name);
      for (const fastPath of [true, false])
        for (const readSize of [1, 97, 0]) {
          const sample = await probe(f, { fastPath, readSize });
          expect({ fastPath, readSize, value: sample.served_by, source: sample.served_by_source }).toEqual({
            fastPath,
            readSize,
            value,
            source,
          });
        }
    });

  it('is null when nothing answered (a connection that failed), whatever the URL says', async () => {
    const { sample } = await runProbe({
      target: { id: 't', api: 'openai-chat', url: 'https://bedrock-runtime.eu-west-1.amazonaws.com/', model: 'm' },
      prompt: { id: 'p', promptTokens: 64, maxTokens: 32 },
      fetch: async () => {
        throw new TypeError('fetch failed');
      },
    });
    expect(sample.error).toBe('network');
    expect([sample.served_by, sample.served_by_source]).toEqual([null, null]);
  });
});

describe('the order of preference', () => {
  const headers = (h: Record<string, string>) => new Headers(h);
  it('body provider, then region header, then the host, then a PoP, then the cf-ray colo', () => {
    const all = headers({ 'x-ms-region': 'Sweden Central', 'x-amz-cf-pop': 'FRA56-P1', 'cf-ray': '8f0c1d2e3a4b5c6d-FRA' });
    const bedrock = 'https://bedrock-runtime.eu-central-1.amazonaws.com/model/m/converse-stream';
    expect(servedBy({ value: 'DeepInfra', source: 'body.provider' }, all, bedrock)).toEqual({
      value: 'DeepInfra',
      source: 'body.provider',
    });
    expect(servedBy(null, all, bedrock)).toEqual({ value: 'Sweden Central', source: 'x-ms-region' });
    expect(servedBy(null, headers({ 'x-amz-cf-pop': 'FRA56-P1' }), bedrock)).toEqual({ value: 'eu-central-1', source: 'url.host' });
    expect(servedBy(null, headers({ 'x-amz-cf-pop': 'FRA56-P1', 'cf-ray': '8f0c1d2e3a4b5c6d-FRA' }), 'https://x.example/')).toEqual({
      value: 'FRA56-P1',
      source: 'x-amz-cf-pop',
    });
    expect(servedBy(null, headers({ 'cf-ray': '8f0c1d2e3a4b5c6d-FRA' }), 'https://x.example/')).toEqual({ value: 'FRA', source: 'cf-ray' });
    expect(servedBy(null, headers({}), 'https://x.example/')).toBeNull();
  });

  it('reads the region of Bedrock and Vertex AI hosts, and nothing of other hosts', () => {
    expect(regionOfHost('https://bedrock-runtime.us-east-1.amazonaws.com/model/x/converse-stream')).toEqual({
      value: 'us-east-1',
      source: 'url.host',
    });
    expect(regionOfHost('https://bedrock-runtime-fips.us-gov-west-1.amazonaws.com/')?.value).toBe('us-gov-west-1');
    expect(
      regionOfHost('https://europe-west4-aiplatform.googleapis.com/v1/projects/p/locations/europe-west4/publishers/google/models/g:x'),
    ).toEqual({ value: 'europe-west4', source: 'url.host' });
    expect(regionOfHost('https://aiplatform.googleapis.com/v1/projects/p/locations/global/x')?.value).toBe('global');
    for (const url of [
      'https://api.openai.com/v1/chat/completions',
      'https://evil.example/bedrock-runtime.us-east-1.amazonaws.com',
      'not a url',
    ])
      expect(regionOfHost(url), url).toBeNull();
  });

  it('keeps only short, printable names from vendor bytes', () => {
    expect(servedValue('  Sweden Central ')).toBe('Sweden Central');
    for (const hostile of ['', '   ', 'x'.repeat(65), 'a\nb', '<script>', 'a\u0000b', 42, null, { name: 'x' }])
      expect(servedValue(hostile), JSON.stringify(hostile)).toBeNull();
    expect(servedBy(null, new Headers({ 'x-ms-region': 'x'.repeat(200), 'cf-ray': '8f0c1d2e3a4b5c6d-AMS' }), 'https://x.example/')).toEqual(
      {
        value: 'AMS',
        source: 'cf-ray',
      },
    );
  });
});
