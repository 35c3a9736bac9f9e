/**
 * The event-stream decoder is linear in the bytes. A timing test (the `timing` project), built like
 * decoder-linear.timing.test.ts: the bounds are CPU times that a decoder joining its carry to every read,
 * or cutting each decoded message off the front of its buffer, exceeds by orders of magnitude, while a
 * linear one needs a fraction of a second (measured under Node 22: 0.2 s and 0.1 s at most), so a busy
 * machine cannot break them and a definition error cannot pass. A 1 MiB message in 4-byte reads, carried
 * by concatenation, is 262,144 copies of half a MiB on average (137 GB moved, half a minute); 16 MiB of
 * 178-byte messages in one read, each cut off the front, moves some 10^12 bytes.
 */
import { describe, expect, it } from 'vitest';
import { createEventStreamDecoder, MAX_EVENT_STREAM_PAYLOAD_BYTES } from '../../../shared/probe/aws-eventstream.ts';
import { StreamMeter } from '../../../shared/probe/stream-meter.ts';
import { protocolFor } from '../../../shared/probe/protocols/index.ts';
import { awsEvent, codec, concat, cut } from '../../helpers/bedrock-stream.ts';

const LINEAR_BOUND_MS = 3_000;
const STREAM_BYTES = 16 * 1024 * 1024;

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** 16 MiB of ConverseStream text deltas, each about 150 bytes as Bedrock sends them. */
function smallMessages(): { bytes: Uint8Array; count: number } {
  const one = awsEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { text: ' fox' }, p: 'abcdefghijklmnopqrstu' });
  const count = Math.floor(STREAM_BYTES / one.length);
  return { bytes: concat(Array(count).fill(one)), count };
}

describe('linear-time event-stream decoding', () => {
  it('16 MiB of small messages, in one read and in 4 KiB reads, through the stream meter', () => {
    const { bytes, count } = smallMessages();
    for (const reads of [[bytes], cut(bytes, Array(Math.ceil(bytes.length / 4096)).fill(4096))]) {
      const meter = new StreamMeter(protocolFor('bedrock-converse'));
      const start = cpuMs();
      for (const r of reads) meter.onRead(r, 1);
      meter.onClose(2);
      const ms = cpuMs() - start;
      expect(meter.state.protocolError).toBeNull();
      expect(meter.state.tokenEvents).toBe(count);
      expect(ms, `${reads.length} reads: ${ms.toFixed(0)} ms of CPU`).toBeLessThan(LINEAR_BOUND_MS);
    }
  });

  it('a message at the 1 MiB payload cap, in 4-byte reads', () => {
    const message = codec.encode({
      headers: { ':event-type': { type: 'string', value: 'x' } },
      body: new Uint8Array(MAX_EVENT_STREAM_PAYLOAD_BYTES),
    });
    const reads = cut(message, Array(Math.ceil(message.length / 4)).fill(4));
    let payload = -1;
    const d = createEventStreamDecoder((_, p) => (payload = p.length), { onFault: (detail) => expect.fail(detail) });
    const start = cpuMs();
    for (const r of reads) d.push(r);
    d.end();
    const ms = cpuMs() - start;
    expect(payload).toBe(MAX_EVENT_STREAM_PAYLOAD_BYTES);
    expect(ms, `${reads.length} reads: ${ms.toFixed(0)} ms of CPU`).toBeLessThan(LINEAR_BOUND_MS);
  });
});
