/**
 * The event-stream decoder against AWS's own codec (@smithy/eventstream-codec): every message it encodes —
 * every Bedrock event and exception, every header value type — decodes to the same headers and payload,
 * whole, split at every byte and in random reads; and every way a stream can break the format is one
 * fault, with nothing decoded after it.
 */
import { crc32 as zlibCrc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { Int64, type MessageHeaders, type MessageHeaderValue } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import {
  createEventStreamDecoder,
  dispatchMessage,
  MAX_EVENT_STREAM_MESSAGE_BYTES,
  MAX_EVENT_STREAM_PAYLOAD_BYTES,
  type EventStreamHeader,
  type EventStreamHeaders,
} from '../../../shared/probe/aws-eventstream.ts';
import { encodeEventStreamMessage } from '../../../shared/probe/aws-eventstream-encoder.ts';
import { crc32 } from '../../../shared/probe/crc32.ts';
import { mulberry32 } from '../../../shared/stats/random.ts';
import { awsError, awsEvent, awsException, codec, concat, cut } from '../../helpers/bedrock-stream.ts';

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
/** Equal bytes: shown as hex when short (a readable diff), compared natively when long. */
function expectBytes(actual: Uint8Array, expected: Uint8Array, label?: string): void {
  if (expected.length < 1_000) expect(hex(actual), label).toBe(hex(expected));
  else expect(actual.length === expected.length && Buffer.compare(actual, expected) === 0, label).toBe(true);
}

/** Smithy's decoded header in the decoder's terms: a long as a bigint read from its own bytes, a timestamp in ms. */
function expectedHeader(h: MessageHeaderValue): EventStreamHeader {
  if (h.type === 'long') return { type: 'long', value: BigInt.asIntN(64, BigInt(`0x${hex(h.value.bytes)}`)) };
  if (h.type === 'timestamp') return { type: 'timestamp', value: h.value.getTime() };
  return h as EventStreamHeader;
}

interface Decoded {
  headers: EventStreamHeaders;
  payload: Uint8Array;
}

/** Decodes the reads; every message and every fault. */
function decode(reads: readonly Uint8Array[], options: Parameters<typeof createEventStreamDecoder>[1] = {}) {
  const messages: Decoded[] = [];
  const faults: Array<{ detail: string; overflow: boolean }> = [];
  const d = createEventStreamDecoder((headers, payload) => messages.push({ headers: { ...headers }, payload: payload.slice() }), {
    ...options,
    onFault: (detail, overflow) => faults.push({ detail, overflow }),
  });
  for (const r of reads) d.push(r);
  d.end();
  return { messages, faults };
}

const str = (value: string): MessageHeaderValue => ({ type: 'string', value });

/** Every header value type, with edge values (negative numbers, non-ASCII text, a long beyond 2^53). */
const ALL_TYPES: MessageHeaders = {
  yes: { type: 'boolean', value: true },
  no: { type: 'boolean', value: false },
  byte: { type: 'byte', value: -7 },
  short: { type: 'short', value: -30_000 },
  integer: { type: 'integer', value: -2_000_000_000 },
  long: { type: 'long', value: Int64.fromNumber(-123_456_789_012) },
  longMin: { type: 'long', value: new Int64(Uint8Array.from([0x80, 0, 0, 0, 0, 0, 0, 1])) },
  binary: { type: 'binary', value: Uint8Array.from([0, 255, 128, 7]) },
  string: str('grüße, 世界 🌍'),
  empty: str(''),
  timestamp: { type: 'timestamp', value: new Date(1_731_368_639_123) },
  before1970: { type: 'timestamp', value: new Date(-86_400_001) },
  uuid: { type: 'uuid', value: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' },
};

/** The oracle's messages: every Bedrock event and exception, an error, every header type, edge sizes. */
const MESSAGES: Array<{ headers: MessageHeaders; body: Uint8Array }> = [
  ...[
    awsEvent('messageStart', { role: 'assistant' }),
    awsEvent('contentBlockStart', { contentBlockIndex: 1, start: { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather' } } }),
    awsEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hello' }, p: 'abcdefgh' }),
    awsEvent('contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '{"city":' } } }),
    awsEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'Let me think' } } }),
    awsEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'EqQBCkYIBxgCKkA' } } }),
    awsEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { redactedContent: 'AAECAwQ=' } } }),
    awsEvent('contentBlockStop', { contentBlockIndex: 0 }),
    awsEvent('messageStop', { stopReason: 'end_turn' }),
    awsEvent('metadata', { usage: { inputTokens: 12, outputTokens: 34, totalTokens: 46 }, metrics: { latencyMs: 789 } }),
    ...[
      'throttlingException',
      'serviceUnavailableException',
      'internalServerException',
      'modelStreamErrorException',
      'validationException',
      'modelTimeoutException',
    ].map((t) => awsException(t, `${t} happened`)),
    awsError('InternalFailure', 'something broke'),
  ].map((bytes) => codec.decode(bytes)),
  { headers: ALL_TYPES, body: fromUtf8('{"all":"types"}') },
  { headers: {}, body: new Uint8Array(0) },
  { headers: { ':event-type': str('big') }, body: new Uint8Array(200_000).map((_, i) => (i * 7) & 0xff) },
  { headers: { ':event-type': str('unicode') }, body: fromUtf8('{"text":"ça va? 你好 🙂"}') },
];

const WIRE = MESSAGES.map((m) => codec.encode(m));
const STREAM = concat(WIRE);

function expectOracle(decoded: Decoded[]): void {
  expect(decoded.length).toBe(MESSAGES.length);
  for (let i = 0; i < MESSAGES.length; i++) {
    const want = Object.fromEntries(Object.entries(MESSAGES[i].headers).map(([name, h]) => [name, expectedHeader(h)]));
    expect(decoded[i].headers).toEqual(want);
    expectBytes(decoded[i].payload, MESSAGES[i].body, `message ${i}`);
  }
}

describe('CRC-32 (IEEE)', () => {
  it('has the standard check value and agrees with zlib, also continued from a prefix', () => {
    expect(crc32(fromUtf8('123456789'))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
    const random = mulberry32(1);
    for (let n = 0; n < 70; n++) {
      const bytes = new Uint8Array(n).map(() => Math.floor(random() * 256));
      expect(crc32(bytes)).toBe(zlibCrc32(bytes));
      for (let k = 0; k <= n; k++) expect(crc32(bytes, k, n, crc32(bytes, 0, k))).toBe(zlibCrc32(bytes));
    }
  });
});

describe('decoding what AWS encodes', () => {
  it('every message, in one read', () => {
    const { messages, faults } = decode([STREAM]);
    expect(faults).toEqual([]);
    expectOracle(messages);
  });

  it('split at every byte boundary of every message', () => {
    for (const [index, wire] of WIRE.entries()) {
      // The big payload's boundaries are sampled; every other message is split at each of its bytes.
      const step = wire.length > 10_000 ? 997 : 1;
      for (let at = 1; at < wire.length; at += step) {
        const { messages, faults } = decode([wire.subarray(0, at), wire.subarray(at)]);
        expect(faults, `message ${index} split at ${at}`).toEqual([]);
        expect(messages.length).toBe(1);
        expectBytes(messages[0].payload, MESSAGES[index].body);
      }
    }
  });

  it('one byte per read', () => {
    const small = concat(WIRE.filter((w) => w.length < 10_000));
    const { messages, faults } = decode(Array.from(small, (b) => Uint8Array.of(b)));
    expect(faults).toEqual([]);
    expect(messages.length).toBe(MESSAGES.length - 1);
  });

  it('in random reads (sizes 1 to 300 bytes, and 1 to 64 KiB)', () => {
    for (const [seed, max] of [
      [2, 300],
      [3, 300],
      [4, 65_536],
    ]) {
      const random = mulberry32(seed);
      const sizes = Array.from({ length: STREAM.length }, () => 1 + Math.floor(random() * max));
      const { messages, faults } = decode(cut(STREAM, sizes));
      expect(faults).toEqual([]);
      expectOracle(messages);
    }
  });

  it('a clean end between messages is no fault; no bytes at all is none either', () => {
    expect(decode([WIRE[0]], {}).faults).toEqual([]);
    expect(decode([]).faults).toEqual([]);
    expect(decode([new Uint8Array(0), WIRE[0], new Uint8Array(0)]).messages.length).toBe(1);
  });

  it("the probe's own encoder (its warm-up stream) writes what AWS's codec reads", () => {
    const headers = { ':event-type': 'contentBlockDelta', ':content-type': 'application/json', ':message-type': 'event', 'x-ü': 'wert' };
    const payload = fromUtf8('{"delta":{"text":"a"}}');
    const back = codec.decode(encodeEventStreamMessage(headers, payload));
    expect(Object.fromEntries(Object.entries(back.headers).map(([k, h]) => [k, h.value]))).toEqual(headers);
    expect(toUtf8(back.body)).toBe('{"delta":{"text":"a"}}');
  });
});

describe('messages handed on as events', () => {
  const events = (bytes: Uint8Array) => {
    const out: Array<[string, string]> = [];
    const wrong: string[] = [];
    decode([bytes]).messages.forEach((m) => {
      const w = dispatchMessage(m.headers, m.payload, (event, data) => out.push([event, data]));
      if (w !== null) wrong.push(w);
    });
    return { out, wrong };
  };

  it('an event by its type, an exception as exception:<type>, an error as error:<code> with its message', () => {
    expect(events(awsEvent('messageStop', { stopReason: 'end_turn' })).out).toEqual([['messageStop', '{"stopReason":"end_turn"}']]);
    expect(events(awsException('throttlingException', 'slow')).out).toEqual([['exception:throttlingException', '{"message":"slow"}']]);
    expect(events(awsError('InternalFailure', 'broke')).out).toEqual([['error:InternalFailure', '{"message":"broke"}']]);
  });

  it('a message of no known kind, or an event without its type, is named as wrong and handed on as nothing', () => {
    const enc = (headers: Record<string, string>) => encodeEventStreamMessage(headers, fromUtf8('{}'));
    expect(events(enc({ ':message-type': 'gossip' }))).toEqual({ out: [], wrong: ['unknown event-stream :message-type "gossip"'] });
    expect(events(enc({ ':event-type': 'x' }))).toEqual({ out: [], wrong: ['event-stream message without a :message-type'] });
    expect(events(enc({ ':message-type': 'event' }))).toEqual({ out: [], wrong: ['event-stream event without an :event-type'] });
  });
});

describe('a reader that takes messages from their bytes (RawMessages)', () => {
  /** Every message offered (its bytes), every message handed on (its index among those offered), and each seen payload. */
  function offer(reads: readonly Uint8Array[], takes: (index: number) => boolean) {
    const offered: string[] = [];
    const handedOn: number[] = [];
    const seen: string[] = [];
    const faults: string[] = [];
    const d = createEventStreamDecoder(() => handedOn.push(offered.length - 1), {
      onFault: (detail) => faults.push(detail),
      raw: {
        take: (b, start, end) => {
          offered.push(hex(b.subarray(start, end)));
          return takes(offered.length - 1);
        },
        seen: (b, start, payloadStart, end) => {
          expect(hex(b.subarray(start, end))).toBe(offered.at(-1));
          seen.push(hex(b.subarray(payloadStart, end - 4)));
        },
      },
    });
    for (const r of reads) d.push(r);
    d.end();
    return { offered, handedOn, seen, faults };
  }

  it('is offered every message whole, split or not; one it takes is not handed on, and one it leaves is seen after', () => {
    const random = mulberry32(3);
    const sizes = Array.from({ length: 2_000 }, () => 1 + Math.floor(random() * 300));
    const cases: Array<[Uint8Array[], Uint8Array[]]> = [
      [[STREAM], WIRE],
      [cut(STREAM, sizes), WIRE],
      [Array.from(concat(WIRE.slice(0, 4)), (b) => Uint8Array.of(b)), WIRE.slice(0, 4)],
    ];
    for (const [reads, wire] of cases) {
      const { offered, handedOn, seen, faults } = offer(reads, (i) => i % 2 === 1);
      expect(faults).toEqual([]);
      expect(offered).toEqual(wire.map(hex));
      expect(handedOn).toEqual(wire.map((_, i) => i).filter((i) => i % 2 === 0));
      expect(seen).toEqual(handedOn.map((i) => hex(codec.decode(wire[i]).body)));
    }
  });

  it('is offered no message whose prelude or message CRC fails, and nothing after it', () => {
    for (const at of [5, 20, WIRE[2].length - 10, WIRE[2].length - 1]) {
      const bad = WIRE[2].slice();
      bad[at] ^= 0x01;
      const { offered, faults } = offer([concat([WIRE[0], bad, WIRE[3]])], () => true);
      expect(offered).toEqual([hex(WIRE[0])]);
      expect(faults).toHaveLength(1);
    }
  });
});

/** A message whose prelude and message CRCs are right for whatever its bytes say (zlib's CRC, not the decoder's). */
function framed(total: number, headersLength: number, rest: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + rest.length + 4);
  const view = new DataView(out.buffer);
  view.setUint32(0, total);
  view.setUint32(4, headersLength);
  view.setUint32(8, zlibCrc32(out.subarray(0, 8)));
  out.set(rest, 12);
  view.setUint32(out.length - 4, zlibCrc32(out.subarray(0, out.length - 4)));
  return out;
}

describe('a broken stream is one fault, and nothing after it is decoded', () => {
  const good = awsEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hello' } });
  const headersLength = new DataView(good.buffer).getUint32(4);
  /** `bad` between two good messages, in one read and one byte per read: the first message, then the fault. */
  function expectFault(bad: Uint8Array, detail: RegExp, overflow = false): void {
    const stream = concat([good, bad, good]);
    for (const reads of [[stream], Array.from(stream, (b) => Uint8Array.of(b))]) {
      const { messages, faults } = decode(reads);
      expect(faults).toHaveLength(1);
      expect(faults[0].detail).toMatch(detail);
      expect(faults[0].overflow).toBe(overflow);
      expect(messages).toHaveLength(1);
    }
  }
  const flip = (at: number) => {
    const b = good.slice();
    b[at] ^= 0x20;
    return b;
  };

  it('a flipped byte in the prelude or its CRC: the prelude CRC', () => {
    for (const at of [0, 3, 4, 7, 8, 11]) expectFault(flip(at), /^event-stream prelude CRC mismatch$/);
  });

  it('a flipped byte in the headers, the payload or the message CRC: the message CRC', () => {
    for (const at of [12, 12 + headersLength - 1, 12 + headersLength, good.length - 5, good.length - 4, good.length - 1])
      expectFault(flip(at), /^event-stream message CRC mismatch$/);
  });

  it('a stream that ends inside a prelude or a payload', () => {
    for (const [keep, detail] of [
      [5, /^stream ended inside an event-stream prelude \(5 of 12 bytes\)$/],
      [12, /^stream ended inside an event-stream message \(12 of \d+ bytes\)$/],
      [good.length - 10, /^stream ended inside an event-stream message \(\d+ of \d+ bytes\)$/],
      [good.length - 1, /^stream ended inside an event-stream message/],
    ] as const) {
      for (const reads of [[good, good.subarray(0, keep)], [concat([good, good.subarray(0, keep)])]]) {
        const { messages, faults } = decode(reads);
        expect(messages).toHaveLength(1);
        expect(faults).toHaveLength(1);
        expect(faults[0].detail).toMatch(detail);
      }
    }
  });

  it('an oversized message: an overflow, before anything is allocated for it', () => {
    // Only the prelude is sent: a decoder that waited for (or allocated) 4 GiB would not fault here.
    const prelude = (total: number, headers: number) => framed(total, headers, new Uint8Array(0)).subarray(0, 12);
    expectFault(prelude(0xffffffff, 10), /^an event-stream message of 4294967295 bytes over the 1152 KiB cap$/, true);
    expectFault(prelude(MAX_EVENT_STREAM_MESSAGE_BYTES + 1, 10), /over the 1152 KiB cap$/, true);
    // Within the message cap, but the payload passes its own.
    expectFault(prelude(16 + 10 + MAX_EVENT_STREAM_PAYLOAD_BYTES + 1, 10), /^an event-stream payload over the 1024 KiB cap$/, true);
    expectFault(prelude(16 + 200 * 1024, 200 * 1024), /^event-stream headers over the 128 KiB cap$/, true);
  });

  it('a payload exactly at the cap is read', () => {
    const payload = new Uint8Array(MAX_EVENT_STREAM_PAYLOAD_BYTES);
    const { messages, faults } = decode([codec.encode({ headers: { a: str('b') }, body: payload })]);
    expect(faults).toEqual([]);
    expect(messages[0].payload.length).toBe(MAX_EVENT_STREAM_PAYLOAD_BYTES);
  });

  it('lengths that contradict each other', () => {
    expectFault(framed(20, 5, new Uint8Array(4)), /^event-stream headers length 5 does not fit in a message of 20 bytes$/);
    expectFault(framed(15, 0, new Uint8Array(0)).subarray(0, 12), /^event-stream message length 15 is below the 16-byte minimum$/);
  });

  it('an unknown header type, or a header that runs past the headers', () => {
    // name "x", type 10
    const unknown = Uint8Array.of(1, 0x78, 10);
    expectFault(framed(16 + unknown.length, unknown.length, unknown), /^unknown event-stream header type 10 \(header "x"\)$/);
    // name "x", string type, length 9 but only 2 bytes follow
    const long = Uint8Array.of(1, 0x78, 7, 0, 9, 0x61, 0x62);
    expectFault(framed(16 + long.length, long.length, long), /^event-stream header "x" runs past the headers$/);
    // a name of 5 bytes, 2 present
    const name = Uint8Array.of(5, 0x61, 0x62);
    expectFault(framed(16 + name.length, name.length, name), /^event-stream header runs past the headers$/);
    // an int header with 2 of its 4 bytes
    const int = Uint8Array.of(1, 0x6e, 4, 0, 1);
    expectFault(framed(16 + int.length, int.length, int), /^event-stream header "n" runs past the headers$/);
  });

  it('nothing is decoded after a fault, also in later reads or at the end', () => {
    const messages: number[] = [];
    const faults: string[] = [];
    const d = createEventStreamDecoder(() => messages.push(1), { onFault: (detail) => faults.push(detail) });
    d.push(concat([good, flip(2)]));
    d.push(good);
    d.push(good.subarray(0, 3));
    d.end();
    expect(messages).toEqual([1]);
    expect(faults).toEqual(['event-stream prelude CRC mismatch']);
  });
});
