import { describe, expect, it, vi } from 'vitest';
import { StreamMeter } from '../../../shared/probe/stream-meter.ts';
import { runProbe, type ProbeOptions } from '../../../shared/probe/probe.ts';
import { chatChunk, FakeClock, scriptedFetch, type Script } from '../../helpers/scripted-fetch.ts';

const target = {
  id: 't',
  api: 'openai-chat' as const,
  url: 'http://127.0.0.1:9/v1/chat/completions',
  model: 'm',
  apiKey: 'sk-test-SECRET-123456789',
};
const prompt = { id: 'p', promptTokens: 64, maxTokens: 16 };
const FINISH = `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`;
const USAGE = (n: number) => `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 64, completion_tokens: n } })}\n\n`;

function probe(script: Script, extra: Partial<ProbeOptions> = {}) {
  return runProbe({
    target,
    prompt,
    fetch: scriptedFetch(script),
    timeouts: { headersMs: 2000, firstTokenMs: 2000, idleMs: 2000, totalMs: 5000 },
    ...extra,
  });
}

describe('probe timing on a fake clock', () => {
  it('stamps each read and derives every figure of the contract', async () => {
    const clock = new FakeClock();
    const script: Script = {
      headersAt: 100,
      headers: { 'content-type': 'text/event-stream', 'server-timing': 'queue;dur=20, prefill;dur=40, total;dur=60' },
      steps: [
        { at: 150, data: chatChunk({ role: 'assistant', content: '' }) },
        { at: 200, data: chatChunk({ reasoning_content: 'think' }) },
        { at: 300, data: chatChunk({ content: 'A' }) },
        { at: 310, data: chatChunk({ content: 'B' }) + chatChunk({ content: 'C' }) },
        { at: 330, data: chatChunk({ content: 'D' }) },
        { at: 360, data: chatChunk({ content: 'E' }) + FINISH },
        { at: 380, data: USAGE(6) },
        { at: 400, data: 'data: [DONE]\n\n' },
      ],
    };
    const { sample } = await runProbe({
      target,
      prompt,
      fetch: scriptedFetch(script, clock),
      now: clock.now,
      wallClock: () => 1_700_000_000_000,
    });
    // With clocks of one origin, started_at is t0 itself (no second reading): the CLI's case.
    const t0 = clock.now();
    const at = await runProbe({
      target,
      prompt,
      fetch: scriptedFetch(script, clock),
      now: clock.now,
      wallClock: () => 0,
      epochOf: (t) => 1_700_000_000_000 + t,
    });
    expect(at.sample.started_at).toBe(1_700_000_000_000 + t0);
    expect(sample).toMatchObject({
      error: null,
      status: 200,
      started_at: 1_700_000_000_000,
      headers_ms: 100,
      first_byte_ms: 150,
      ttft_ms: 200,
      ttfa_ms: 300,
      total_ms: 400,
      output_tokens: 6,
      tokens_exact: true,
      input_tokens: 64,
      chunks: 5,
      timeline: [200, 300, 310, 330, 360],
      itl_p50_ms: 25,
      itl_max_ms: 100,
      tpot_ms: 32,
      decode_tps: 31.25,
      server_timings: { 'server-timing.queue': 20, 'server-timing.prefill': 40, 'server-timing.total': 60 },
      server_headers_ms: 60,
      network_ms: 40,
      server_ms: 160,
      split_source: 'server-timing.total',
      finish_reason: 'stop',
    });
  });

  it('counts token-bearing events when no usage is reported', async () => {
    const clock = new FakeClock();
    const { sample } = await runProbe({
      target,
      prompt,
      now: clock.now,
      rttMs: 12,
      fetch: scriptedFetch(
        {
          headersAt: 10,
          steps: [
            { at: 20, data: chatChunk({ content: 'a' }) + chatChunk({ content: 'b' }) },
            { at: 50, data: chatChunk({ content: 'c' }) + FINISH },
          ],
        },
        clock,
      ),
    });
    expect(sample).toMatchObject({
      output_tokens: 3,
      tokens_exact: false,
      chunks: 2,
      tpot_ms: 15,
      network_ms: 12,
      server_ms: 8,
      split_source: 'rtt',
      total_ms: 50,
    });
  });
});

describe('figures that cannot be observed stay null', () => {
  it('TPOT is null when every token arrived in one read', async () => {
    const { sample } = await probe({ steps: [{ data: chatChunk({ content: 'a' }) + chatChunk({ content: 'b' }) + FINISH + USAGE(2) }] });
    expect(sample).toMatchObject({ error: null, output_tokens: 2, chunks: 1, tpot_ms: null, decode_tps: null });
  });
});

describe('probe error classes', () => {
  it('non-2xx is http with the status and a safe detail', async () => {
    const { sample } = await probe({
      status: 503,
      headers: { 'content-type': 'application/json' },
      steps: [{ data: '{"error":{"message":"bad key sk-test-SECRET-123456789","type":"server_error"}}' }],
    });
    expect(sample).toMatchObject({ error: 'http', status: 503, ttft_ms: null });
    expect(sample.error_detail).toBe('HTTP 503 server_error: bad key [redacted]');
  });

  it('configured header values never reach error_detail', async () => {
    const { sample } = await runProbe({
      target: { ...target, headers: { 'x-custom-auth': 'hunter2-very-secret' } },
      prompt,
      fetch: scriptedFetch({ status: 500, steps: [{ data: 'bad auth header hunter2-very-secret for key sk-test-SECRET-123456789' }] }),
    });
    expect(sample.error_detail).toBe('HTTP 500 bad auth header [redacted] for key [redacted]');
  });

  it('429 is rate_limited and keeps retry-after; 529 is overloaded', async () => {
    const limited = await probe({ status: 429, headers: { 'retry-after': '7' }, steps: [{ data: 'slow down' }] });
    expect(limited.sample).toMatchObject({ error: 'rate_limited', status: 429, error_detail: 'HTTP 429 slow down (retry-after 7)' });
    const overloaded = await probe({
      status: 529,
      steps: [{ data: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' }],
    });
    expect(overloaded.sample).toMatchObject({ error: 'overloaded', status: 529, error_detail: 'HTTP 529 overloaded_error: Overloaded' });
  });

  it('a connection failure is network', async () => {
    const { sample } = await probe({ rejectWith: new TypeError('fetch failed'), steps: [] });
    expect(sample).toMatchObject({ error: 'network', status: null, headers_ms: null });
  });

  it('a wrong content type is protocol', async () => {
    const { sample } = await probe({ headers: { 'content-type': 'application/json' }, steps: [{ data: '{"choices":[]}' }] });
    expect(sample.error).toBe('protocol');
    expect(sample.error_detail).toContain('application/json');
  });

  it('an unparsable event is protocol', async () => {
    const { sample } = await probe({ steps: [{ data: chatChunk({ content: 'a' }) }, { data: 'data: {"choices": [tru\n\n' }] });
    expect(sample).toMatchObject({ error: 'protocol', total_ms: null });
    expect(sample.ttft_ms).not.toBeNull();
  });

  it('a cut-off event is protocol on the fast path too', async () => {
    for (const fastPath of [true, false]) {
      const { sample } = await probe(
        { steps: [{ data: chatChunk({ content: 'a' }) }, { data: 'data: {"id":"x","choices":[{"index":0,"delta":{"content":"hi"}\n\n' }] },
        { fastPath },
      );
      expect(sample.error, `fastPath ${fastPath}`).toBe('protocol');
    }
  });

  it('a malformed Gemini event is protocol on both paths, and the probe does not throw', async () => {
    const good =
      'data: {"candidates": [{"content": {"parts": [{"text": "x"}],"role": "model"}}],"usageMetadata": {"promptTokenCount": 3}}\r\n\r\n';
    const broken =
      'data: {"candidates": [{"content": {"parts": [{"text": "y"}],"role": "model"}}],"usageMetadata": {"candidatesTokenCount": 1,,}}\r\n\r\n';
    for (const fastPath of [true, false]) {
      const { sample } = await runProbe({
        target: { ...target, api: 'gemini', url: 'http://127.0.0.1:9/v1beta/models/m:streamGenerateContent?alt=sse' },
        prompt,
        fastPath,
        fetch: scriptedFetch({ steps: [{ data: good }, { data: broken }] }),
      });
      expect(sample.error, `fastPath ${fastPath}`).toBe('protocol');
    }
  });

  it('an error event inside a 200 stream is stream_error', async () => {
    const { sample } = await probe({
      steps: [
        { data: chatChunk({ content: 'a' }) },
        { data: 'event: error\ndata: {"error":{"message":"boom","code":"server_error"}}\n\n' },
      ],
    });
    expect(sample).toMatchObject({ error: 'stream_error', error_detail: 'server_error: boom', total_ms: null });
  });

  it('closing without end marker or finish reason is truncated', async () => {
    const { sample } = await probe({ steps: [{ data: chatChunk({ content: 'a' }) }] });
    expect(sample).toMatchObject({ error: 'truncated', total_ms: null, tpot_ms: null });
  });

  it('a finish reason without [DONE] is a complete stream for OpenAI-compatible servers', async () => {
    const { sample } = await probe({ steps: [{ data: chatChunk({ content: 'a' }) + FINISH }] });
    expect(sample.error).toBeNull();
  });

  it('Anthropic without message_stop is truncated even after a stop reason', async () => {
    const { sample } = await runProbe({
      target: { ...target, api: 'anthropic-messages', url: 'http://127.0.0.1:9/v1/messages' },
      prompt,
      fetch: scriptedFetch({
        steps: [
          {
            data: 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}\n\n',
          },
          {
            data: 'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}\n\n',
          },
        ],
      }),
    });
    expect(sample.error).toBe('truncated');
  });

  it('a body that breaks mid-stream is truncated', async () => {
    const { sample } = await probe({ steps: [{ data: chatChunk({ content: 'a' }) }, { fail: true }] });
    expect(sample.error).toBe('truncated');
    expect(sample.error_detail).toContain('stream broke');
  });

  it('a 12 MiB line without a newline is a protocol error at the per-line cap, read no further', async () => {
    const piece = 'x'.repeat(64 * 1024);
    const steps = [
      { data: chatChunk({ content: 'a' }) },
      { data: 'data: {"choices":"' },
      ...Array.from({ length: 192 }, () => ({ data: piece })),
    ];
    const { sample } = await probe({ steps });
    // The cap's error, not the 16 MiB body limit's ("response larger than …").
    expect(sample).toMatchObject({ error: 'protocol', error_detail: 'a line over the 1024 KiB cap' });
  });

  it('an error event nested 200,000 deep is a stream_error with a short detail, not a crash', async () => {
    const deep = '['.repeat(200_000) + ']'.repeat(200_000);
    const { sample } = await probe({ steps: [{ data: chatChunk({ content: 'a' }) }, { data: `data: {"error":{"message":${deep}}}\n\n` }] });
    expect(sample.error).toBe('stream_error');
    expect(sample.error_detail).toContain('too deeply nested');
  });

  it("an exception in the probe's own code is one failed sample of class internal, naming it", async () => {
    const spy = vi.spyOn(StreamMeter.prototype, 'onRead').mockImplementation(() => {
      throw new TypeError('cannot read the thing');
    });
    try {
      const { sample } = await probe({ steps: [{ data: chatChunk({ content: 'a' }) }] });
      expect(sample).toMatchObject({
        error: 'internal',
        error_detail: 'probe failed on this stream: TypeError: cannot read the thing',
        headers_ms: expect.any(Number),
      });
    } finally {
      spy.mockRestore();
    }
  });

  it('a runaway body is cut off', async () => {
    const big = chatChunk({ content: 'x'.repeat(1000) });
    const { sample } = await probe({ steps: Array.from({ length: 50 }, () => ({ data: big })) }, { maxStreamBytes: 10_000 });
    expect(sample).toMatchObject({ error: 'protocol', error_detail: 'response larger than 10000 bytes' });
  });
});

// Which limit fired is read from the sample (its class and detail), not from the wall clock: a hang is the test's
// own timeout, and how fast a limit fires is a timing claim (the timing project's).
describe('probe timeouts never hang the caller', () => {
  const fast = { headersMs: 150, firstTokenMs: 300, idleMs: 150, totalMs: 2000 };

  it('no headers: timeout_headers', async () => {
    const { sample } = await probe({ hangHeaders: true, steps: [] }, { timeouts: fast });
    expect(sample.error).toBe('timeout_headers');
  });

  it('headers and keep-alives but no token: timeout_first_token', async () => {
    const { sample } = await probe(
      { steps: [{ data: ': keep-alive\n\n' }, { delayMs: 50, data: chatChunk({ role: 'assistant', content: '' }) }, { hang: true }] },
      { timeouts: fast },
    );
    expect(sample).toMatchObject({ error: 'timeout_first_token', ttft_ms: null });
    expect(sample.headers_ms).not.toBeNull();
  });

  it('tokens then silence: stall', async () => {
    const { sample } = await probe({ steps: [{ data: chatChunk({ content: 'a' }) }, { hang: true }] }, { timeouts: fast });
    expect(sample).toMatchObject({ error: 'stall', error_detail: 'no token for 150 ms', total_ms: null });
    expect(sample.ttft_ms).not.toBeNull();
  });

  it('a gap longer than the idle limit is a stall even when the headers limit is far off', async () => {
    const steps = [{ data: chatChunk({ content: 'a' }) }, { delayMs: 600, data: chatChunk({ content: 'b' }) + FINISH }];
    const { sample } = await probe({ steps }, { timeouts: { headersMs: 5_000, firstTokenMs: 5_000, idleMs: 150, totalMs: 10_000 } });
    expect(sample).toMatchObject({ error: 'stall', error_detail: 'no token for 150 ms' });
  });

  it('the first-token limit applies on its own when it is shorter than the headers limit', async () => {
    const keepAlives = Array.from({ length: 50 }, () => ({ delayMs: 40, data: ': keep-alive\n\n' }));
    const { sample } = await probe(
      { steps: keepAlives },
      { timeouts: { headersMs: 5_000, firstTokenMs: 200, idleMs: 5_000, totalMs: 10_000 } },
    );
    expect(sample).toMatchObject({ error: 'timeout_first_token', error_detail: 'no token within 200 ms' });
  });

  it('a stream still trickling at the total limit: stall at the total bound', async () => {
    const steps = Array.from({ length: 200 }, () => ({ delayMs: 20, data: chatChunk({ content: 'a' }) }));
    const { sample } = await probe({ steps }, { timeouts: { ...fast, totalMs: 400 } });
    expect(sample.error).toBe('stall');
    expect(sample.error_detail).toContain('total limit');
  });
});
