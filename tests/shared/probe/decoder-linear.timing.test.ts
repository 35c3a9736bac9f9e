/**
 * Decoding is linear in the bytes, whatever a server sends. A timing test (the `timing` project): the
 * bounds are CPU times that a quadratic decoder exceeds by orders of magnitude (a 16 MiB line searched
 * from its start on every 4 KiB read is about 3.4e10 character visits, minutes of CPU) while a linear
 * one needs milliseconds, so a busy machine cannot break them and a definition error cannot pass.
 */
import { describe, expect, it } from 'vitest';
import { createLineDecoder, createSseDecoder } from '../../../shared/probe/sse-decoder.ts';
import { StreamMeter } from '../../../shared/probe/stream-meter.ts';
import { protocolFor } from '../../../shared/probe/protocols/index.ts';

const LINEAR_BOUND_MS = 3_000;

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

describe('linear-time decoding', () => {
  it('a 16 MiB line in 4 KiB reads (cap raised past it), SSE and NDJSON', () => {
    const piece = 'x'.repeat(4096);
    for (const make of [createSseDecoder, createLineDecoder]) {
      let events = 0;
      const d = make(() => events++, { maxChars: 32 * 1024 * 1024 });
      const start = cpuMs();
      d.push('data: ');
      for (let i = 0; i < 4096; i++) d.push(piece);
      d.push('\n\n');
      d.end();
      const ms = cpuMs() - start;
      expect(events).toBe(1);
      expect(ms, `${make.name}: ${ms.toFixed(0)} ms of CPU`).toBeLessThan(LINEAR_BOUND_MS);
    }
  });

  it('4 MiB of events that match the learned token template up to its end, in one read', () => {
    const encoder = new TextEncoder();
    const learn =
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}\n\n';
    // Each starts like the learned event and differs only at its end: the template fails late every time.
    const nearMiss =
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi","x":1}}\n\n';
    const meter = new StreamMeter(protocolFor('anthropic-messages'));
    meter.onRead(encoder.encode(learn), 1);
    const flood = encoder.encode(nearMiss.repeat(Math.floor((4 << 20) / nearMiss.length)));
    const start = cpuMs();
    meter.onRead(flood, 2);
    const ms = cpuMs() - start;
    expect(meter.state.tokenEvents).toBe(1 + Math.floor((4 << 20) / nearMiss.length));
    expect(ms, `${ms.toFixed(0)} ms of CPU`).toBeLessThan(LINEAR_BOUND_MS);
  });
});
